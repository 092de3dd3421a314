import { join } from 'node:path';

/** Where the test run's own servers listen (apart from a developer's running instance). */
export const TEST_SERVERS = {
  dataDir: join(__dirname, '..', '.data', 'test'),
  ferretdbPort: 27018,
  temporalPort: 17233,
  temporalUiPort: 18233,
};

export const WORKFLOW_BUNDLE_PATH = join(TEST_SERVERS.dataDir, 'workflow-bundle.js');
