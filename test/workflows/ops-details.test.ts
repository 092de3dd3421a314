import type { CheckpointRecord } from '../../src/store/checkpoints.repo';
import type { ProofRunRecord } from '../../src/store/proofs.repo';
import type { ScenarioRunRecord } from '../../src/store/scenario-runs.repo';
import {
  checkpointCurrentDetails,
  deliveryCurrentDetails,
  proofCurrentDetails,
  scenarioCurrentDetails,
} from '../../src/workflows/ops-details';
import { deliveryText } from '../../src/workflows/notification-delivery.contract';

// The current details of the continuous-ops workflows, at the ends the live tests do not
// reach: failures, errors, a delivery with no names.

const at = '2026-11-25T09:00:00.000Z';

describe('ops current details', () => {
  it('a failed checkpoint says where it stopped and why', () => {
    const record = {
      _id: 'chk_1',
      scope: ['world', 'actions'],
      status: 'failed',
      scopes: { world: { count: 1, sha256: 'x', collections: [] } },
      manifest: null,
      world_revision: 3,
      history_head: null,
      error: 'disk *full*',
      seq: 2,
    } as unknown as CheckpointRecord;
    const text = checkpointCurrentDetails(record, { world: ['world_objects'], actions: [] });
    expect(text).toContain('- **Stage:** failed');
    expect(text).toContain('- **Next:** nothing: it ended failed');
    expect(text).toContain('- **Progress:** 1 of 2 scopes (world)');
    expect(text).toContain('- **Error:** disk \\*full\\*');
  });

  it('a proof run names the checks that did not pass', () => {
    const record = {
      _id: 'prf_1',
      status: 'running',
      checks: ['action_ledger_chain', 'executions_approved', 'world_history_replay'],
      max_records: 100,
      results: [{ name: 'action_ledger_chain', status: 'failed', violation_count: 2 }],
      error: null,
    } as unknown as ProofRunRecord;
    const text = proofCurrentDetails(record);
    expect(text).toContain('- **Progress:** 1 of 3 checks');
    expect(text).toContain('- **Next:** check `executions_approved` (at most 100 records)');
    expect(text).toContain('- **Not passed:** `action_ledger_chain` failed (2)');
  });

  it('an errored scenario run says so', () => {
    const record = {
      _id: 'scn_1',
      scenario: 'approval-drill',
      status: 'errored',
      checks: [],
      observations: {},
      report: null,
      error: 'api unreachable',
    } as unknown as ScenarioRunRecord;
    const text = scenarioCurrentDetails(record, 'ended');
    expect(text).toContain('- **Stage:** errored');
    expect(text).toContain('- **Next:** nothing: it ended errored');
    expect(text).toContain('- **Error:** api unreachable');
  });

  it('a delivery reads in words, with or without its names', () => {
    const named = {
      notification_id: 'ntf_1',
      deliver_at: at,
      about: {
        event: 'action.approved',
        subject_id: 'act_1',
        subscription_id: 'sub_1',
        subscription_name: 'ops',
      },
    };
    expect(deliveryText(named)).toBe('deliver action.approved of act_1 to ops');
    expect(deliveryText({ notification_id: 'ntf_2', deliver_at: at })).toBe(
      'deliver notification ntf_2',
    );
    const text = deliveryCurrentDetails(deliveryText(named), 'waiting', at);
    expect(text).toContain('- **Stage:** waiting');
    expect(text).toContain('- **Next:** its due time, 2026-11-25 09:00:00Z');
    expect(deliveryCurrentDetails('x', 'failed', at)).toContain('nothing: failed');
  });
});
