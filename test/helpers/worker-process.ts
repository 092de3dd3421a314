import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { testMongoUri, testTemporalAddress, workflowBundlePath } from '../test-env';
import {
  TEST_LEDGER_CHECKPOINT_DIR,
  TEST_LEDGER_SEAL_KEY,
  TEST_PEPPER,
  type TestApp,
} from './test-app';

/** A real worker process (the one `npm start` runs) serving the app's queue, to kill -9. */
export function startWorkerProcess(app: TestApp, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [join(__dirname, '..', '..', 'dist', 'src', 'worker.js')], {
    env: {
      PATH: process.env['PATH'],
      MONGODB_URI: `${testMongoUri()}${app.dbName}`,
      TEMPORAL_ADDRESS: testTemporalAddress(),
      TEMPORAL_TASK_QUEUE: app.deps.config.taskQueue,
      KEY_PEPPER: TEST_PEPPER,
      // The app's ledger seal key and checkpoint directory: both writers seal alike.
      LEDGER_SEAL_KEY: TEST_LEDGER_SEAL_KEY,
      LEDGER_CHECKPOINT_DIR: TEST_LEDGER_CHECKPOINT_DIR,
      WORKFLOW_BUNDLE_PATH: workflowBundlePath(),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: 'ignore',
  });
}

/** SIGKILL, resolved once the process has exited. */
export const killed = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
