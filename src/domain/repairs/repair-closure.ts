import type { Repos } from '../../store';
import type { RepairRecord } from '../../store/repairs.repo';
import { closureText, type WorkflowClosure } from '../workflow-closure';
import { finishRepair } from './finish-repair';
import { FINAL_REPAIR_STATUSES } from './schemas';

/**
 * A repair whose workflow was ended from Temporal before it ended: `failed`, its `error`
 * naming what Temporal recorded, appended to the repair ledger and its object freed for the
 * next repair, in the order the workflow ends one (ledger and release, then the record), so
 * a final record means the rest is done. Its child action, ended with it (the parent close
 * policy terminates it), is aborted from its own closure.
 */
export async function failRepairAfterClosure(
  deps: { repos: Pick<Repos, 'repairs'> },
  repairId: string,
  closure: WorkflowClosure,
): Promise<'recorded' | 'already_final' | 'unknown_record'> {
  const record = await deps.repos.repairs.findById(repairId);
  if (!record) return 'unknown_record';
  if (FINAL_REPAIR_STATUSES.includes(record.status)) return 'already_final';
  const failed: RepairRecord = {
    ...record,
    status: 'failed',
    error: closureText(closure),
    status_timestamps: { ...record.status_timestamps, failed: closure.closed_at },
    seq: record.seq + 1,
    updated_at: closure.closed_at,
    completed_at: closure.closed_at,
  };
  failed.ledger_seq = await finishRepair(deps.repos, failed);
  await deps.repos.repairs.project(failed);
  return 'recorded';
}
