import { bundleWorkflowCode } from '@temporalio/worker';

const quiet = { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} };

/**
 * The production workflows bundled with a test-only interceptor module: another build of
 * the same workflows, made without touching their code (the rolling-upgrade and replay tests).
 */
export async function bundleWorkflowsWith(interceptorModule: string): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../src/workflows'),
    workflowInterceptorModules: [interceptorModule],
    logger: quiet,
  });
  return code;
}
