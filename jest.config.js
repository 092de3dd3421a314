// Two tiers (docs/conventions.md, "Tests"): `unit` runs every test file without servers;
// `integration` runs the files named `*.int.test.ts` against FerretDB, the Temporal dev server
// and the workflow bundle, which its global setup starts and builds. `npm test` runs both.
const shared = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    // Type checking is `npm run typecheck`'s job; tests only transpile, which is much faster.
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.int\\.test\\.ts$'],
      setupFiles: ['<rootDir>/test/tiers/unit-setup.ts'],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['**/*.int.test.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
  ],
  testTimeout: 60_000,
  maxWorkers: 2,
};
