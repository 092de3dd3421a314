// `npm run histories:capture`: re-captures every stored workflow history from real runs
// (docs/workflow-versioning.md). Not part of `npm test`, which replays what this writes.
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['**/*.capture.ts'],
  globalSetup: '<rootDir>/test/workflows/capture/capture-setup.ts',
  testTimeout: 300_000,
};
