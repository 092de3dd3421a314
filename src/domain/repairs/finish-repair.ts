import type { Repos } from '../../store';
import type { RepairRecord } from '../../store/repairs.repo';
import { ledgerEntryOf } from './ledger';

/**
 * Appends an ended repair to the repair ledger (once: `repair_id` is unique) and frees its
 * object for the next repair; answers its ledger slot. The workflow's last step, and the
 * api's when the workflow was ended from Temporal.
 */
export async function finishRepair(
  repos: Pick<Repos, 'repairs'>,
  record: RepairRecord,
): Promise<number> {
  const entry = await repos.repairs.appendOnce(record._id, (head) => ledgerEntryOf(record, head));
  await repos.repairs.release(record.object_id, record._id);
  return entry._id;
}
