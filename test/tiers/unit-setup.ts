/**
 * Runs before each unit-tier test file (jest.config.js, project `unit`): the file sees no
 * servers, so a helper that would open a connection throws and names the integration tier
 * (test/test-env.ts) even when the shell or the integration tier's global setup exported them.
 * Each test file has its own copy of `process.env`, so the integration files are unaffected.
 */
process.env['GR_TEST_TIER'] = 'unit';
delete process.env['TEST_MONGODB_URI'];
delete process.env['TEST_TEMPORAL_ADDRESS'];
