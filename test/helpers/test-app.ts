import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createApp } from '../../src/api/app';
import { createHttpServer } from '../../src/api/http-server';
import { buildDeps } from '../../src/app/build-deps';
import type { AppDeps } from '../../src/app/deps';
import { mintApiKey } from '../../src/auth/api-key';
import { loadConfig } from '../../src/config';
import type { Tracing } from '../../src/observability/tracing';
import { TEST_SERVERS, testMongoUri, testTemporalAddress } from '../test-env';

export interface TestApp {
  url: string;
  deps: AppDeps;
  adminKey: string;
  dbName: string;
  /** Stops listening and releases dependencies (keeps the database). */
  stop(): Promise<void>;
  /** Stops and drops the database. */
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Share a database between several app instances. */
  dbName?: string;
  adminKey?: string;
  env?: Record<string, string>;
  /** Tracing started by the test (an in-memory exporter), shared with its worker. */
  tracing?: Tracing;
  /** Listen on this port (default: any free one), e.g. one the config must name in advance. */
  port?: number;
}

export const TEST_PEPPER = 'test-pepper-0123456789abcdef0123456789abcdef';
/** The ledger seal key of test apps and their workers (`LEDGER_SEAL_KEY`). */
export const TEST_LEDGER_SEAL_KEY = '5ea1'.repeat(16);
/** Where test apps append their ledger checkpoints: `<database>.jsonl` each. */
export const TEST_LEDGER_CHECKPOINT_DIR = join(TEST_SERVERS.dataDir, 'ledger-checkpoints');

/** A fresh database name per test file (and per call). */
export const freshDbName = (label: string): string =>
  `t_${label.replace(/[^A-Za-z0-9]/g, '_').slice(0, 30)}_${randomBytes(4).toString('hex')}`;

/** Builds the real app against the test FerretDB and Temporal, listening on a free port. */
export async function startTestApp(label: string, options: TestAppOptions = {}): Promise<TestApp> {
  const dbName = options.dbName ?? freshDbName(label);
  const adminKey = options.adminKey ?? mintApiKey(randomBytes(6).toString('hex'));
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    MONGODB_URI: `${testMongoUri()}${dbName}`,
    TEMPORAL_ADDRESS: testTemporalAddress(),
    TEMPORAL_TASK_QUEUE: `test-${dbName}`,
    KEY_PEPPER: TEST_PEPPER,
    LEDGER_SEAL_KEY: TEST_LEDGER_SEAL_KEY,
    LEDGER_CHECKPOINT_DIR: TEST_LEDGER_CHECKPOINT_DIR,
    ADMIN_API_KEY: adminKey,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_SYNC_MS: '100',
    REQUEST_LEDGER_FLUSH_MS: '50',
    VALIDATE_RESPONSES: 'true',
    ...options.env,
  });
  const deps = await buildDeps(
    config,
    pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' }),
    options.tracing ? { tracing: options.tracing } : {},
  );
  // The same server as src/main.ts: what Node's parser refuses is answered by our code.
  const server: Server = createHttpServer(createApp(deps));
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    record('response-coverage', deps.checkedResponses);
    record('status-coverage', deps.answeredStatuses);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await deps.close();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    deps,
    adminKey,
    dbName,
    stop,
    async close() {
      // Flush the background writers first, or they recreate the database after the drop.
      await deps.monitor.stop();
      await deps.limiter.stop();
      await deps.ledger.stop();
      await deps.db.dropDatabase().catch(() => undefined);
      rmSync(join(TEST_LEDGER_CHECKPOINT_DIR, `${dbName}.jsonl`), { force: true });
      rmSync(join(TEST_LEDGER_CHECKPOINT_DIR, `${dbName}.records.jsonl`), { force: true });
      rmSync(join(TEST_LEDGER_CHECKPOINT_DIR, `${dbName}.audit.jsonl`), { force: true });
      await stop();
    },
  };
}

/** A port free right now, for an app whose config must name its own origin before it listens. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Leaves the routes whose 2xx this app checked for scripts/check-response-coverage.js. */
/** Writes what this app saw (for scripts/check-response-coverage.js after the run). */
function record(kind: 'response-coverage' | 'status-coverage', checked: Set<string>): void {
  if (checked.size === 0) return;
  const dir = join(TEST_SERVERS.dataDir, kind);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${process.pid}-${randomBytes(4).toString('hex')}.txt`),
    [...checked].join('\n'),
  );
}
