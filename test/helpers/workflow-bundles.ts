import { bundleWorkflowCode } from '@temporalio/worker';
import {
  WORKFLOW_INTERCEPTOR_MODULES,
  WORKFLOW_PRELOAD_MODULES,
  WORKFLOWS_PATH,
} from '../../src/worker/workflow-bundle';

const quiet = { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} };

/**
 * The production workflows bundled with a test-only interceptor module: another build of
 * the same workflows, made without touching their code (the rolling-upgrade and replay tests).
 */
export async function bundleWorkflowsWith(interceptorModule: string): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES, interceptorModule],
    preloadModules: [...WORKFLOW_PRELOAD_MODULES],
    logger: quiet,
  });
  return code;
}
