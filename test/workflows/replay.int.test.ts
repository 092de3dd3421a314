import { join } from 'node:path';
import * as workflows from '../../src/workflows';
import { loadStoredHistories } from '../helpers/histories';
import { replayFailures } from '../helpers/replay';
import { bundleWorkflowsWith } from '../helpers/workflow-bundles';
import { workflowBundleCode } from '../test-env';

// Determinism against real histories (docs/workflow-versioning.md): every stored history,
// captured from real runs of this build or kept from earlier ones, replays against the
// workflow code as it is now. A change that would break a running workflow fails here.
const stored = loadStoredHistories();

describe('stored workflow histories', () => {
  it('cover every workflow type the worker registers', () => {
    const covered = new Set(stored.map((h) => h.workflowType));
    const uncovered = Object.keys(workflows).filter((type) => !covered.has(type));
    expect({ uncovered }).toEqual({ uncovered: [] });
  });

  it('are filed under the workflow type they start', () => {
    const misfiled = stored.filter((h) => h.file.split('/')[1] !== h.workflowType);
    expect(misfiled.map((h) => h.file)).toEqual([]);
  });

  it('replay against the current workflow code without a determinism violation', async () => {
    const code = workflowBundleCode();
    expect(await replayFailures(code, stored)).toEqual([]);
  });
});

describe('the replay check', () => {
  it('reports every history, by file, when the code issues a command its history lacks', async () => {
    // The same workflows with one unpatched command first (an upsertMemo): no history has it.
    const changed = await bundleWorkflowsWith(
      join(__dirname, 'upgrade', 'unpatched-upgrade.interceptor.ts'),
    );
    const failures = await replayFailures(changed, stored);
    expect(failures.map((f) => f.file)).toEqual(stored.map((h) => h.file));
    expect(new Set(failures.map((f) => f.error))).toEqual(new Set(['DeterminismViolationError']));
  }, 120_000);
});
