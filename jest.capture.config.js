// `npm run histories:capture`: re-captures every stored workflow history from real runs
// (docs/workflow-versioning.md). Not part of `npm test`, which replays what this writes.
const { projects, maxWorkers } = require('./jest.config');
const { displayName: _tier, ...integration } = projects.find(
  (p) => p.displayName === 'integration',
);

/** @type {import('jest').Config} */
module.exports = {
  ...integration,
  maxWorkers,
  testMatch: ['**/*.capture.ts'],
  globalSetup: '<rootDir>/test/workflows/capture/capture-setup.ts',
  testTimeout: 300_000,
};
