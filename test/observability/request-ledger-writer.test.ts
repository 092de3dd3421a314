import pino from 'pino';
import { RequestLedgerWriter } from '../../src/observability/request-ledger-writer';
import type { ApiKeysRepo } from '../../src/store/api-keys.repo';
import type { RequestLedgerRepo, RequestLedgerRow } from '../../src/store/request-ledger.repo';
import type { UsageRollupsRepo } from '../../src/store/usage-rollups.repo';

const row = (n: number): RequestLedgerRow => ({
  request_id: `r${n}`,
  at: new Date().toISOString(),
  method: 'GET',
  route: '/v1/runtime/status',
  operation_id: 'runtime.status',
  family: 'runtime_basic',
  status: 200,
  latency_ms: 1,
  key_id: null,
  principal_id: null,
  client_ip: '127.0.0.1',
  error_code: null,
});

/** A writer over in-memory stand-ins whose writes take a few milliseconds, like a database. */
function writerWithSlowStore() {
  const buckets: RequestLedgerRow[][] = [];
  let failNext = false;
  let id = 0;
  const ledger = {
    newBucketId: () => `req_${(id += 1)}`,
    async insertBucket(_instance: string, rows: RequestLedgerRow[]) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (failNext) {
        failNext = false;
        throw new Error('store unreachable');
      }
      buckets.push([...rows]);
    },
  } as unknown as RequestLedgerRepo;
  const usageRollups = { insertMany: async () => {} } as unknown as UsageRollupsRepo;
  const apiKeys = {
    collection: { find: () => ({ toArray: async () => [] }) },
    touchLastUsed: async () => {},
  } as unknown as ApiKeysRepo;
  const writer = new RequestLedgerWriter({
    ledger,
    usageRollups,
    apiKeys,
    flushMs: 60_000,
    logger: pino({ level: 'silent' }),
    instanceId: 'test',
  });
  return { writer, buckets, failOnce: () => (failNext = true) };
}

describe('RequestLedgerWriter', () => {
  it('writes one bucket per flush even while rows keep arriving during the write', async () => {
    const { writer, buckets } = writerWithSlowStore();
    let n = 0;
    const arriving = setInterval(() => writer.record(row((n += 1))), 0);
    try {
      for (let flush = 0; flush < 5; flush += 1) {
        writer.record(row((n += 1)));
        await writer.flush();
      }
    } finally {
      clearInterval(arriving);
    }
    expect(buckets).toHaveLength(5);
    await writer.stop();
    expect(buckets.flat().map((r) => r.request_id)).toEqual(
      Array.from({ length: n }, (_, i) => `r${i + 1}`),
    );
  });

  it('keeps a failed batch and writes it first at the next flush, losing nothing', async () => {
    const { writer, buckets, failOnce } = writerWithSlowStore();
    writer.record(row(1));
    failOnce();
    await writer.flush();
    expect(buckets).toHaveLength(0);
    expect(writer.status()).toMatchObject({ unflushed: 1, last_error: 'store unreachable' });
    writer.record(row(2));
    await writer.flush();
    expect(buckets.map((b) => b.map((r) => r.request_id))).toEqual([['r1'], ['r2']]);
    expect(writer.status()).toMatchObject({ unflushed: 0, last_error: null });
  });
});
