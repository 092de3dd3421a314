import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the test run's own servers listen (apart from a developer's running instance). */
export const TEST_SERVERS = {
  dataDir: join(__dirname, '..', '.data', 'test'),
  ferretdbPort: 27018,
  temporalPort: 17233,
  temporalUiPort: 18233,
};

export const WORKFLOW_BUNDLE_PATH = join(TEST_SERVERS.dataDir, 'workflow-bundle.js');

/**
 * The unit tier (test/tiers/unit-setup.ts) runs every file not named `*.int.test.ts` with no
 * servers and no workflow bundle; what needs them says so here instead of failing obscurely.
 */
export function needsIntegrationTier(what: string): void {
  if (process.env['GR_TEST_TIER'] !== 'unit') return;
  throw new Error(
    `this test needs ${what}: name it *.int.test.ts (the integration tier, docs/conventions.md)`,
  );
}

/** The test FerretDB's URI (ends with `/`; append a database name). */
export function testMongoUri(): string {
  needsIntegrationTier('MongoDB');
  const uri = process.env['TEST_MONGODB_URI'];
  if (!uri) throw new Error('TEST_MONGODB_URI is unset: run through jest (test/global-setup.ts)');
  return uri;
}

/** The test Temporal dev server's `host:port`. */
export function testTemporalAddress(): string {
  needsIntegrationTier('Temporal');
  const address = process.env['TEST_TEMPORAL_ADDRESS'];
  if (!address)
    throw new Error('TEST_TEMPORAL_ADDRESS is unset: run through jest (test/global-setup.ts)');
  return address;
}

/** The workflow bundle test/global-setup.ts built for this run (integration tier only). */
export function workflowBundlePath(): string {
  needsIntegrationTier('the workflow bundle');
  return WORKFLOW_BUNDLE_PATH;
}

export const workflowBundleCode = (): string => readFileSync(workflowBundlePath(), 'utf8');
