import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { mintApiKey } from '../src/auth/api-key';
import { freshDbName, TEST_PEPPER } from './helpers/test-app';
import { testMongoUri, testTemporalAddress } from './test-env';

const MAIN = join(__dirname, '..', 'dist', 'src', 'main.js');

/** A free TCP port on loopback. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function startApi(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env['PATH'], ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

const exited = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

beforeAll(() => {
  if (!existsSync(MAIN))
    throw new Error('dist/ is missing: run `npm run build` (npm test does it)');
});

describe('the api process', () => {
  it('refuses to start on a bad variable, naming it', async () => {
    const { child, output } = startApi({ KEY_PEPPER: TEST_PEPPER, PORT: 'eighty' });
    expect(await exited(child)).toBe(1);
    expect(output()).toMatch(/invalid configuration: PORT/);
  });

  it('drains an in-flight request on SIGTERM, then exits 0', async () => {
    const port = await freePort();
    const dbName = freshDbName('shutdown');
    const { child, output } = startApi({
      PORT: String(port),
      MONGODB_URI: `${testMongoUri()}${dbName}`,
      TEMPORAL_ADDRESS: testTemporalAddress(),
      KEY_PEPPER: TEST_PEPPER,
      ADMIN_API_KEY: mintApiKey('0123456789ab'),
      LOG_LEVEL: 'info',
    });
    try {
      for (let i = 0; i < 100; i += 1) {
        const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
        if (up) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const body = JSON.stringify({
        name: 'Late',
        email: 'late@example.test',
        intended_use: 'shutdown test',
      });
      const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/v1/access/request',
            headers: {
              'Content-Type': 'application/json',
              'Content-Length': Buffer.byteLength(body),
            },
          },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          },
        );
        req.on('error', reject);
        // Half the body now, the rest after SIGTERM: the request is in flight across it.
        req.write(body.slice(0, 10));
        setTimeout(() => {
          child.kill('SIGTERM');
          setTimeout(() => req.end(body.slice(10)), 500);
        }, 300);
      });
      const result = await answered;
      expect(result.status).toBe(200);
      expect(JSON.parse(result.text)).toMatchObject({ entitlement: 'sandbox' });
      expect(await exited(child)).toBe(0);
      expect(output()).toContain('draining in-flight requests');
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
      // Start and stop are service events (docs/operations.md).
      const client = await MongoClient.connect(testMongoUri());
      try {
        const events = await client
          .db(dbName)
          .collection<{ kind: string; instance: string; detail: Record<string, unknown> }>(
            'service_events',
          )
          .find({ kind: { $in: ['api.started', 'api.stopped'] } })
          .sort({ at: 1 })
          .toArray();
        expect(events.map((e) => e.kind)).toEqual(['api.started', 'api.stopped']);
        expect(events[0].instance).toBe(events[1].instance);
        expect(events[1].detail).toMatchObject({ signal: 'SIGTERM', pid: child.pid });
      } finally {
        await client.close();
      }
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      const client = await MongoClient.connect(testMongoUri());
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  });
});
