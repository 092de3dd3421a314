/**
 * What every build of the workflow code is made of: the worker bundling from source, the
 * tests' pre-built bundle (`test/global-setup.ts`), the replay of stored histories and the
 * rolling-upgrade builds. One list, so no build can miss the tracing interceptors.
 *
 * The tracing module is in every build, traces on or off: a workflow's code cannot tell
 * which way its worker was started, and one bundle serves both. It stays inert for a
 * workflow whose messages carry no trace context (src/workflows/tracing.interceptors.ts).
 */
export const WORKFLOWS_PATH = require.resolve('../workflows');

export const WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [
  require.resolve('../workflows/tracing.interceptors'),
];
