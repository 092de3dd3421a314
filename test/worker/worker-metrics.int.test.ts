import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { testMongoUri, testTemporalAddress, workflowBundlePath } from '../test-env';
import { TEST_PEPPER, freshDbName } from '../helpers/test-app';

// The worker's Prometheus listener (WORKER_METRICS_LISTEN) counts the MongoDB commands the
// worker sends, as the api's /metrics counts its own: the worker sends most of an action's.

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

it('publishes the MongoDB commands the worker sent on its metrics listener', async () => {
  const port = await freePort();
  const worker = spawn(process.execPath, [join(__dirname, '../../dist/src/worker.js')], {
    env: {
      PATH: process.env['PATH'],
      MONGODB_URI: `${testMongoUri()}${freshDbName('worker_metrics')}`,
      TEMPORAL_ADDRESS: testTemporalAddress(),
      TEMPORAL_TASK_QUEUE: `worker-metrics-${Date.now()}`,
      KEY_PEPPER: TEST_PEPPER,
      WORKFLOW_BUNDLE_PATH: workflowBundlePath(),
      WORKER_METRICS_LISTEN: `127.0.0.1:${port}`,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  worker.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  worker.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => worker.on('exit', () => resolve()));
  try {
    for (let i = 0; i < 300 && !output.includes('worker polling'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(output).toContain('worker polling');
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    // Its start-up alone creates the indexes and reads the runtime record.
    const created = /^gr_mongodb_commands_total\{command="createIndexes"\} (\d+)$/m.exec(text);
    expect(Number(created?.[1] ?? 0)).toBeGreaterThan(0);
  } finally {
    worker.kill('SIGTERM');
    await exited;
  }
}, 60_000);
