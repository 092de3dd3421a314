import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MongoClient, ServerDescriptionChangedEvent } from 'mongodb';
import { connectMongo, guardMongoClient, pingMongo } from '../../src/store/mongo';

// The chaos finding (docs/chaos.md): after FerretDB was SIGKILLed and restarted, one process's
// client stayed failed while every other reconnected. This spawns its own FerretDB, kills and
// restarts it, and checks that a client recovers, that the guard leaves a recovering client and
// a database that is down alone, and that it calls out a client that does not come back.

const BIN = process.env['FERRETDB_BIN'] ?? join(__dirname, '../../.tools/bin/ferretdb');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function until(condition: () => Promise<boolean>, withinMs: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < withinMs) {
    if (await condition()) return Date.now() - start;
    await sleep(250);
  }
  throw new Error(`not within ${withinMs} ms`);
}

/** A driver SDAM monitor (internal): what the stuck-client simulation needs of it. */
interface Monitor {
  /** Asks for a heartbeat now rather than at the next `heartbeatFrequencyMS`. */
  requestCheck(): void;
  close(): void;
}

/** The driver's SDAM monitors of a client (internal: only to simulate a monitor that stopped). */
function monitorsOf(client: MongoClient): Monitor[] {
  const internal = client as unknown as {
    topology: { s: { servers: Map<string, { monitor: Monitor }> } };
  };
  return [...internal.topology.s.servers.values()].map((server) => server.monitor);
}

/**
 * Puts `client` into the state the chaos run found (docs/chaos.md): its server `Unknown`, as
 * its monitor's failed heartbeat left it, and that monitor never checking again. Call with the
 * database down. Since driver 7.1 only the monitor marks the server `Unknown` on a refused
 * connection (an operation's connect error carries `SystemOverloadedError` and leaves the
 * server and its pool alone, client backpressure), so this waits for the monitor's own failed
 * heartbeat before stopping it; closing it earlier would leave a server that stays selectable
 * and a pool that reconnects by itself, which is not stuck.
 */
async function stickClient(client: MongoClient): Promise<void> {
  let serverType: string | undefined;
  const onChange = (event: ServerDescriptionChangedEvent): void => {
    serverType = event.newDescription.type;
  };
  client.on('serverDescriptionChanged', onChange);
  try {
    const monitors = monitorsOf(client);
    await until(async () => {
      for (const monitor of monitors) monitor.requestCheck();
      return serverType === 'Unknown';
    }, 15_000);
    for (const monitor of monitors) monitor.close();
  } finally {
    client.off('serverDescriptionChanged', onChange);
  }
}

describe('a MongoDB client across a FerretDB kill and restart', () => {
  let dataDir: string;
  let port: number;
  let uri: string;
  let ferret: ChildProcess | undefined;

  const start = (): void => {
    ferret = spawn(
      BIN,
      ['--listen', `127.0.0.1:${port}`, '--data', dataDir, '--log-level', 'error'],
      {
        stdio: 'ignore',
      },
    );
  };
  const kill = async (): Promise<void> => {
    const child = ferret;
    ferret = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };

  beforeAll(async () => {
    if (!existsSync(BIN)) throw new Error(`no FerretDB binary at ${BIN} (set FERRETDB_BIN)`);
    dataDir = mkdtempSync(join(tmpdir(), 'gr-mongo-guard-'));
    port = await freePort();
    uri = `mongodb://127.0.0.1:${port}/`;
  });
  beforeEach(start);
  afterEach(kill);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('reconnects by itself within seconds, and the guard stays quiet', async () => {
    const { client, db } = await connectMongo(uri, 'guard_test');
    const onStuck = jest.fn();
    const stop = guardMongoClient(db, { uri, boundMs: 8000, intervalMs: 250, onStuck });
    try {
      await until(async () => (await pingMongo(db)) === undefined, 10_000);
      await kill();
      expect(await pingMongo(db)).toBeDefined();
      start();
      const recoveredMs = await until(async () => (await pingMongo(db)) === undefined, 15_000);
      expect(recoveredMs).toBeLessThan(15_000);
      await sleep(1000);
      expect(onStuck).not.toHaveBeenCalled();
    } finally {
      stop();
      await client.close();
    }
  });

  it('leaves a client alone that comes back with the database after an outage past the bound', async () => {
    const { client, db } = await connectMongo(uri, 'guard_test');
    const onStuck = jest.fn();
    const stop = guardMongoClient(db, { uri, boundMs: 1000, intervalMs: 250, onStuck });
    try {
      await until(async () => (await pingMongo(db)) === undefined, 10_000);
      await kill();
      // Down for twice the bound: every check reaches the fresh client's probe, which
      // waits for the database; the first probe that reaches it must not call a client that
      // is about to reconnect (its own next ping does).
      await sleep(2000);
      start();
      await until(async () => (await pingMongo(db)) === undefined, 15_000);
      await sleep(1500);
      expect(onStuck).not.toHaveBeenCalled();
    } finally {
      stop();
      await client.close();
    }
  });

  it('calls out a client that stays failed once a fresh client reaches the database', async () => {
    const { client, db } = await connectMongo(uri, 'guard_test');
    const onStuck = jest.fn<void, [number]>();
    const stop = guardMongoClient(db, { uri, boundMs: 1500, intervalMs: 250, onStuck });
    try {
      await until(async () => (await pingMongo(db)) === undefined, 10_000);
      await kill();
      await until(async () => (await pingMongo(db)) !== undefined, 10_000);
      // The stuck state: the client's monitor no longer checks the server, so the client
      // never learns the database is back (what the chaos run's worker showed).
      await stickClient(client);
      // Down for longer than the bound: the fresh client fails too, so nothing is called.
      await sleep(2500);
      expect(onStuck).not.toHaveBeenCalled();
      start();
      await until(async () => onStuck.mock.calls.length > 0, 15_000);
      expect(onStuck).toHaveBeenCalledTimes(1);
      expect(onStuck.mock.calls[0]?.[0]).toBeGreaterThanOrEqual(1500);
      expect(await pingMongo(db)).toBeDefined();
    } finally {
      stop();
      await client.close();
    }
  });
});
