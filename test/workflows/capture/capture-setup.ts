import { rmSync } from 'node:fs';
import type { Config } from '@jest/types';
import globalSetup from '../../global-setup';
import { CAPTURED_DIR } from '../../helpers/histories';

/**
 * The test run's setup (servers, workflow bundle), then, for a whole capture, an empty
 * `captured/`: it rewrites every history, so a path no longer captured leaves no stale file.
 * A run of chosen capture files rewrites only their histories.
 */
export default async function captureSetup(globalConfig: Config.GlobalConfig): Promise<void> {
  await globalSetup();
  if (!globalConfig.testPathPatterns.isSet())
    rmSync(CAPTURED_DIR, { recursive: true, force: true });
}
