import { MongoClient } from 'mongodb';
import { newId } from '../../src/lib/ids';
import { listEntryOf } from '../../src/domain/external-actions/action-views';
import { createActionInboxRepo } from '../../src/store/action-inbox.repo';
import type { ActionRecord } from '../../src/store/external-actions.repo';
import type { ActionContract } from '../../src/workflows/external-action.contract';
import { witnessAction } from '../../src/store/external-actions.repo';
import { createWitnessJournalRepo } from '../../src/store/witness-journal.repo';

const STATUSES: ActionRecord['status'][] = [
  'awaiting_approval',
  'executed',
  'executed',
  'rejected',
  'expired',
  'executed',
  'approved',
  'executed',
  'failed',
  'executed',
];

/**
 * `count` action projections as the workflows write them, one in ten awaiting approval
 * (those also in the inbox, written as the record activity writes them), each journalled
 * for the witness index as the repository does.
 */
export async function seedActions(
  mongoUri: string,
  count: number,
  /** One shared context for all of them (default: 50 contexts, `ctx-<i mod 50>`). */
  context?: string,
): Promise<void> {
  const client = await MongoClient.connect(mongoUri);
  try {
    const actions = client.db().collection<ActionRecord>('external_actions');
    const inbox = createActionInboxRepo(client.db());
    const journal = createWitnessJournalRepo(client.db());
    const at = new Date().toISOString();
    for (let start = 0; start < count; start += 500) {
      const batch: ActionRecord[] = [];
      for (let i = start; i < Math.min(count, start + 500); i += 1) {
        const id = newId('act');
        const status = STATUSES[i % STATUSES.length];
        const contract: ActionContract = {
          action_kind: 'world.update_object',
          target: { world_object_ref: `obj_seed${String(i).padStart(20, '0')}` },
          parameters: { patch: { status: 'published' } },
          bounds: { allowed_fields: ['status'], expires_in_seconds: 86_400, required_approvals: 1 },
          shared_context_id: context ?? `ctx-${i % 50}`,
          reason: 'seeded for the inbox benchmark',
        };
        const proposedBy = {
          principal_id: 'prn_seed0000000000000000000000',
          key_id: '000000000000',
        };
        batch.push({
          _id: id,
          ...contract,
          // Seeded projections were never signed: the `decisions_signed` proof would name them.
          proposal: {
            action_id: id,
            contract,
            proposed_by: proposedBy,
            rule: null,
            plan_digest: null,
            created_at: at,
            execute_when_approved: false,
            authority: 'seed',
            signed_at: at,
            signer_key: '',
            signature: '',
          },
          status,
          status_timestamps: { proposed: at, [status]: at },
          proposed_by: proposedBy,
          approvals: [],
          decisions: [],
          dry_run: {
            plan_digest: `sha256:${'0'.repeat(64)}`,
            ok: true,
            diff: {
              object_id: `obj_seed${String(i).padStart(20, '0')}`,
              base_version: 1,
              changes: { status: { from: 'draft', to: 'published' } },
            },
            request: null,
            bounds: {
              allowed_fields: ['status'],
              expires_in_seconds: 86_400,
              required_approvals: 1,
            },
            policy: { allowed: true, reasons: [] },
            planned_at: at,
          },
          execution: null,
          expires_at: new Date(Date.now() + 86_400_000).toISOString(),
          workflow_id: `action-${id}`,
          run_id: 'seeded',
          created_at: at,
          updated_at: at,
          seq: 3,
          ledger_head: null,
          refused_decisions: 0,
          rule: null,
          executable_at: null,
          approved_by: [],
          eligible: ['*'],
        });
      }
      await actions.insertMany(batch, { ordered: false });
      await journal.append(batch.map(witnessAction));
      // Through the inbox's own write, so its arrivals feed is as the record activity
      // writes it; 20 at a time, as concurrent workflows would (their listings share slots).
      const awaiting = batch.filter((action) => action.status === 'awaiting_approval');
      for (let i = 0; i < awaiting.length; i += 20) {
        await Promise.all(
          awaiting
            .slice(i, i + 20)
            .map((action) => inbox.project(listEntryOf(action), { fresh: true })),
        );
      }
    }
  } finally {
    await client.close();
  }
}

/** How long one page of what awaits approval takes read from every action (ms, median of 3). */
export async function naivePageMs(mongoUri: string): Promise<number> {
  const client = await MongoClient.connect(mongoUri);
  try {
    const actions = client.db().collection<ActionRecord>('external_actions');
    const times: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const started = Date.now();
      await actions.find({ status: 'awaiting_approval' }).sort({ _id: -1 }).limit(51).toArray();
      times.push(Date.now() - started);
    }
    return times.sort((a, b) => a - b)[1];
  } finally {
    await client.close();
  }
}
