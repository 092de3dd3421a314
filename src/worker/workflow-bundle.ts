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

/**
 * Modules loaded once per reusable V8 context and shared by every workflow in it. Since SDK
 * 1.14 the sandbox gives each workflow its own copy of every other module, so the Ed25519
 * verifier's precomputed tables (the base point's and each api key's, kept in module state)
 * were rebuilt by every workflow: the worker's CPU per action tripled (bench/results/
 * upgrade-before-after.md). Shared modules are frozen and must hold no per-workflow state:
 * this one only memoizes a pure function of its arguments.
 */
export const WORKFLOW_PRELOAD_MODULES: readonly string[] = [
  require.resolve('../signing/decision-signature'),
];
