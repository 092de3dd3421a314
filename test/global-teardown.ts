import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { TEST_SERVERS } from './test-env';

/** Stops the servers the run started (kept running with KEEP_TEST_SERVERS=1). */
export default function globalTeardown(): void {
  if (process.env['KEEP_TEST_SERVERS'] === '1') return;
  if (process.env['TEST_MONGODB_URI'] !== `mongodb://127.0.0.1:${TEST_SERVERS.ferretdbPort}/`)
    return;
  execFileSync('bash', [join(__dirname, '..', 'scripts', 'servers.sh'), 'stop'], {
    stdio: 'inherit',
    env: { ...process.env, GR_DATA_DIR: TEST_SERVERS.dataDir },
  });
}
