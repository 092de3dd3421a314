import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import {
  WORKFLOW_INTERCEPTOR_MODULES,
  WORKFLOW_PRELOAD_MODULES,
  WORKFLOWS_PATH,
} from '../src/worker/workflow-bundle';
import { TEST_SERVERS, WORKFLOW_BUNDLE_PATH } from './test-env';

/**
 * Starts the real servers once per run (FerretDB and the Temporal dev server, on test ports
 * and a test data folder) unless TEST_MONGODB_URI / TEST_TEMPORAL_ADDRESS point elsewhere,
 * and bundles the workflow code once for every test worker.
 */
export default async function globalSetup(): Promise<void> {
  const external = process.env['TEST_MONGODB_URI'] && process.env['TEST_TEMPORAL_ADDRESS'];
  if (!external) {
    execFileSync('bash', [join(__dirname, '..', 'scripts', 'servers.sh'), 'start'], {
      stdio: 'inherit',
      env: {
        ...process.env,
        GR_DATA_DIR: TEST_SERVERS.dataDir,
        FERRETDB_PORT: String(TEST_SERVERS.ferretdbPort),
        TEMPORAL_PORT: String(TEST_SERVERS.temporalPort),
        TEMPORAL_UI_PORT: String(TEST_SERVERS.temporalUiPort),
      },
    });
    process.env['TEST_MONGODB_URI'] = `mongodb://127.0.0.1:${TEST_SERVERS.ferretdbPort}/`;
    process.env['TEST_TEMPORAL_ADDRESS'] = `127.0.0.1:${TEST_SERVERS.temporalPort}`;
  }
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
    preloadModules: [...WORKFLOW_PRELOAD_MODULES],
    logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} },
  });
  mkdirSync(dirname(WORKFLOW_BUNDLE_PATH), { recursive: true });
  writeFileSync(WORKFLOW_BUNDLE_PATH, code);
}
