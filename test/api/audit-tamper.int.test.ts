import { randomBytes } from 'node:crypto';
import { canonicalDigest } from '../../src/lib/canonical-digest';
import { newId } from '../../src/lib/ids';
import type { StoredAuditRow } from '../../src/store/audit.repo';
import { storedIn } from '../helpers/collections';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// The admin audit is tamper-evident the way the action ledger is (docs/governance.md, "What
// the audit protects against whom"): whoever holds the database edits, inserts and deletes
// audit rows directly, and `audit_chain` names each such row; a retention prune is not a
// deletion. Two api processes write the audit at once, each in its own chain.
interface CheckResult {
  name: string;
  status: string;
  checked: number;
  violations: { collection: string; record_id: string; problem: string }[];
}

let app: TestApp;
let other: TestApp;
let worker: TestWorker;
let prover: TestKey;
beforeAll(async () => {
  app = await startTestApp('audit-tamper');
  // A second api process over the same database and checkpoint file.
  other = await startTestApp('audit-tamper', { dbName: app.dbName, adminKey: app.adminKey });
  worker = await startTestWorker(app.deps);
  prover = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
});
afterAll(async () => {
  await worker?.stop();
  await other?.stop();
  await app.close();
});

const audit = () => storedIn(app.deps.db).audit;

const auditChain = async (): Promise<CheckResult> => {
  const res = await call<{ payload: { results: CheckResult[] } }>(
    app.url,
    'POST',
    '/v1/proofs/checks',
    { key: prover.apiKey, body: { checks: ['audit_chain'] } },
  );
  expect(res.status).toBe(200);
  return res.body.payload.results[0];
};

/** Creates a principal through `on`'s admin API: one audit row; answers that row. */
async function principalCreated(on: TestApp): Promise<StoredAuditRow> {
  const res = await call<{ payload: { principal_id: string } }>(
    on.url,
    'POST',
    '/v1/admin/principals/create',
    {
      key: on.adminKey,
      body: {
        name: 'audited',
        email: `a-${randomBytes(5).toString('hex')}@example.test`,
        role: 'member',
      },
    },
  );
  expect(res.status).toBe(201);
  const row = await audit().findOne({ 'target.id': res.body.payload.principal_id });
  return row!;
}

/** A row written by the api with a time of our choosing (retention needs old rows). */
const backdated = (daysAgo: number, id: string) =>
  app.deps.repos.audit.record({
    at: new Date(Date.now() - daysAgo * 86_400_000).toISOString(),
    actor: { key_id: 'aaaaaaaaaaaa', principal_id: 'prn_00000000000000000000000000' },
    action: 'test.old',
    target: { type: 'test', id },
    before: null,
    after: null,
    request_id: 'r',
  });

describe('the audit written by two api processes at once', () => {
  it('is chained per process, sealed and checkpointed, and passes audit_chain', async () => {
    const rows = await Promise.all(
      [app, other, app, other, app, other].map((on) => principalCreated(on)),
    );
    expect(new Set(rows.map((row) => row.chain_id)).size).toBe(2);
    for (const row of rows) {
      expect(row).toMatchObject({
        chain_id: expect.stringMatching(/^[0-9a-f]{16}$/),
        seq: expect.any(Number),
        digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        seal: { key_id: app.deps.ledgerSeal.keyId },
      });
    }
    const result = await auditChain();
    expect({ status: result.status, violations: result.violations }).toEqual({
      status: 'passed',
      violations: [],
    });
    expect(result.checked).toBeGreaterThanOrEqual(rows.length);
  });

  it('keeps its published view: GET /v1/admin/audit shows no chain fields', async () => {
    const res = await call<{ payload: { items: Record<string, unknown>[] } }>(
      app.url,
      'GET',
      '/v1/admin/audit?limit=5',
      { key: app.adminKey },
    );
    expect(res.status).toBe(200);
    for (const item of res.body.payload.items) {
      expect(Object.keys(item).sort()).toEqual(
        ['action', 'actor', 'after', 'at', 'audit_id', 'before', 'request_id', 'target'].sort(),
      );
    }
  });
});

describe('retention against deletion', () => {
  it('names an old row deleted directly, and passes it once a prune has cut there', async () => {
    const old = await backdated(400, 'deleted-directly');
    const kept = await Promise.all([backdated(401, 'pruned-1'), backdated(402, 'pruned-2')]);
    await principalCreated(app);
    await audit().deleteOne({ _id: old._id });
    const before = await auditChain();
    expect(before.status).toBe('failed');
    expect(before.violations).toEqual([
      expect.objectContaining({
        collection: 'audit',
        record_id: old._id,
        problem: expect.stringMatching(
          /^it is gone: the checkpoint of .*, and no retention cut reaches it$/,
        ),
      }),
    ]);

    const prune = await call<{ payload: { deleted: { audit: number } } }>(
      app.url,
      'POST',
      '/v1/admin/prune-ledgers',
      {
        key: app.adminKey,
        body: {
          older_than: new Date(Date.now() - 30 * 86_400_000).toISOString(),
          confirm: 'delete',
        },
      },
    );
    expect(prune.status).toBe(200);
    expect(prune.body.payload.deleted.audit).toBe(kept.length);
    // Rows in the middle of the chain pruned, the directly deleted one older than the cut too.
    const after = await auditChain();
    expect({ status: after.status, violations: after.violations }).toEqual({
      status: 'passed',
      violations: [],
    });
  });
});

describe('the database holder against the audit', () => {
  it('names each edited, inserted and deleted row', async () => {
    const rows: StoredAuditRow[] = [];
    for (let i = 0; i < 5; i += 1) rows.push(await principalCreated(app));
    const [edited, rechained, deleted, survivor, newest] = rows;
    expect(rows.map((row) => row.seq)).toEqual(rows.map((_, i) => rows[0].seq! + i));

    // Edited in place, digest kept.
    await audit().updateOne({ _id: edited._id }, { $set: { 'after.name': 'someone else' } });
    // Edited with its digest recomputed by the published recipe, its seal kept.
    const { digest: _d, seal, ...body } = { ...rechained, action: 'principal.status' };
    await audit().replaceOne(
      { _id: rechained._id },
      { ...body, digest: canonicalDigest(body), seal: seal! },
    );
    // Deleted in the middle, and the chain's newest deleted.
    await audit().deleteMany({ _id: { $in: [deleted._id, newest._id] } });
    // Inserted: a plain row, and one chained after the newest with a seal of the holder's making.
    const { chain_id: _c, seq: _s, prev_digest: _p, digest: _pd, seal: _ps, ...content } = survivor;
    const plainRow = { ...content, _id: newId('aud') };
    const forgedBody = {
      ...content,
      _id: newId('aud'),
      chain_id: survivor.chain_id!,
      seq: newest.seq! + 1,
      prev_digest: newest.digest!,
    };
    const forged = {
      ...forgedBody,
      digest: canonicalDigest(forgedBody),
      seal: { key_id: survivor.seal!.key_id, signature: 'ab'.repeat(64) },
    };
    await audit().insertMany([plainRow, forged]);

    const result = await auditChain();
    expect(result.status).toBe('failed');
    const named = (id: string) =>
      result.violations.filter((v) => v.record_id === id).map((v) => v.problem);
    expect(named(edited._id)).toEqual(['its digest does not recompute']);
    expect(named(rechained._id)).toEqual([
      expect.stringMatching(/^its seal does not verify/),
      expect.stringMatching(/^the checkpoint of .* names .* but it has digest/),
    ]);
    expect(named(deleted._id)).toEqual([expect.stringMatching(/^it is gone: the checkpoint/)]);
    expect(named(newest._id)).toEqual([expect.stringMatching(/^it is gone: the checkpoint/)]);
    expect(named(plainRow._id)).toEqual([
      expect.stringMatching(/^it is not chained, though dated after sealing began/),
    ]);
    expect(named(forged._id)).toEqual([expect.stringMatching(/^its seal does not verify/)]);
    // Nothing else: the row after the deleted one is not blamed for its neighbour.
    expect(new Set(result.violations.map((v) => v.record_id))).toEqual(
      new Set([edited, rechained, deleted, newest, plainRow, forged].map((row) => row._id)),
    );
  });
});
