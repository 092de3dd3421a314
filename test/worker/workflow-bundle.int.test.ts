import { WORKFLOW_PRELOAD_MODULES } from '../../src/worker/workflow-bundle';
import { workflowBundleCode } from '../test-env';

/**
 * The Ed25519 verifier is loaded once per V8 context, so its precomputed tables outlive a
 * workflow: without it, every workflow rebuilt them and the worker's CPU per action tripled.
 * The bundle the tests run (built by the global setup as the worker builds its own) must
 * load it in `preloadModules`, the SDK's hook for modules shared across workflows.
 */
describe('the workflow bundle', () => {
  it('preloads the decision verifier, shared by every workflow of a context', () => {
    const code = workflowBundleCode();
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([\s\S]*?)\n\}/.exec(
      code,
    );
    expect(preload).not.toBeNull();
    expect(WORKFLOW_PRELOAD_MODULES.some((path) => path.includes('decision-signature'))).toBe(true);
    expect(preload![1]).toMatch(/signing\/decision-signature/);
  });
});
