import { rmSync } from 'node:fs';
import globalSetup from '../../global-setup';
import { CAPTURED_DIR } from '../../helpers/histories';

/**
 * The test run's setup (servers, workflow bundle), then an empty `captured/`: a capture
 * rewrites every history, so a path that is no longer captured leaves no stale file behind.
 */
export default async function captureSetup(): Promise<void> {
  await globalSetup();
  rmSync(CAPTURED_DIR, { recursive: true, force: true });
}
