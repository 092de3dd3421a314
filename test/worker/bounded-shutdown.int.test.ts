import { spawn } from 'node:child_process';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { testMongoUri, testTemporalAddress, workflowBundlePath } from '../test-env';
import { TEST_PEPPER, freshDbName } from '../helpers/test-app';

// A worker sent SIGTERM while Temporal and the database are already down exits within its
// grace period (SHUTDOWN_GRACE_MS), whatever its drain waits on.

/** A TCP relay to `target` that can be cut: every connection dropped, no new ones taken. */
async function relay(target: string): Promise<{ address: string; cut(): void }> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), target.split(':').pop()!];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut() {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

it('exits within its grace period after SIGTERM when Temporal and the database are down', async () => {
  const mongo = await relay(testMongoUri().replace(/^mongodb:\/\/|\/.*$/g, ''));
  const temporal = await relay(testTemporalAddress());
  const worker = spawn(process.execPath, [join(__dirname, '../../dist/src/worker.js')], {
    env: {
      PATH: process.env['PATH'],
      MONGODB_URI: `mongodb://${mongo.address}/${freshDbName('shutdown')}`,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: `shutdown-${Date.now()}`,
      KEY_PEPPER: TEST_PEPPER,
      WORKFLOW_BUNDLE_PATH: workflowBundlePath(),
      SHUTDOWN_GRACE_MS: '2000',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  worker.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  worker.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    worker.on('exit', (code) => resolve(code)),
  );
  try {
    for (let i = 0; i < 300 && !output.includes('worker polling'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(output).toContain('worker polling');
    mongo.cut();
    temporal.cut();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const signalled = Date.now();
    worker.kill('SIGTERM');
    const code = await Promise.race([
      exited,
      new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 8000)),
    ]);
    expect(code).not.toBe('still running');
    expect(Date.now() - signalled).toBeLessThan(6000);
  } finally {
    worker.kill('SIGKILL');
  }
}, 60_000);
