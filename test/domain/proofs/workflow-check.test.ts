import { actionsMatchWorkflow, WORKFLOW_GRACE_MS } from '../../../src/domain/proofs/workflow-check';

const now = new Date('2026-11-28T12:00:00.000Z');
const settled = new Date(now.getTime() - WORKFLOW_GRACE_MS - 1).toISOString();
const fresh = new Date(now.getTime() - 1000).toISOString();

describe('actions_match_workflow', () => {
  it('flags a final action whose workflow runs, and an open one whose workflow does not', () => {
    const records = [
      { _id: 'act_A', status: 'rejected' as const, updated_at: settled },
      { _id: 'act_B', status: 'awaiting_approval' as const, updated_at: settled },
      { _id: 'act_C', status: 'executed' as const, updated_at: settled },
      { _id: 'act_D', status: 'approved' as const, updated_at: settled },
    ];
    const { checked, violations } = actionsMatchWorkflow(records, new Set(['act_A', 'act_D']), now);
    expect(checked).toBe(4);
    expect(violations).toEqual([
      {
        collection: 'external_actions',
        record_id: 'act_A',
        problem: 'its workflow still runs, though the action is rejected',
      },
      {
        collection: 'external_actions',
        record_id: 'act_B',
        problem: 'its workflow runs no more, though the action is awaiting_approval',
      },
    ]);
  });

  it('leaves a record changed within the grace alone (its workflow may be closing)', () => {
    const records = [{ _id: 'act_A', status: 'executed' as const, updated_at: fresh }];
    expect(actionsMatchWorkflow(records, new Set(['act_A']), now)).toEqual({
      checked: 0,
      violations: [],
    });
  });
});
