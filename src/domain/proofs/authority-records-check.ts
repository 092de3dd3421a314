import { RecordIntegrityError } from '../../lib/errors';
import type { Repos } from '../../store';
import type { SealedCollection } from '../../store/sealed-records';
import { sealProblem } from '../external-actions/ledger-seal';
import type { CheckFindings } from './checks';
import type { Violation } from './schemas';

/** The sealed collections read whole (bounded), each record checked against its seal. */
export const SEALED_RECORD_COLLECTIONS = [
  'api_keys',
  'principals',
  'organizations',
  'approver_keys',
  'approval_rules',
  'quota_policies',
] as const satisfies readonly SealedCollection[];

type Deps = {
  repos: Pick<Repos, 'collectionReader' | 'externalActions' | 'sealed'>;
  /** Ed25519 keys whose ledger seals are accepted: the entry an end names must carry one. */
  acceptedLedgerKeys: readonly string[];
};

/**
 * `authority_records`: every record that grants or limits authority holds its seal (nobody
 * without the record seal key changed, inserted or copied it), and every end record holds
 * its seal and names a ledger entry that says the same and is sealed. Unsealed records are
 * named too: records written before sealing existed are sealed once by `seal-records`.
 */
export async function authorityRecordsCheck(
  deps: Deps,
  max: number,
): Promise<CheckFindings & { bound_reached: boolean }> {
  const reader = deps.repos.collectionReader;
  const violations: Violation[] = [];
  let checked = 0;
  let boundReached = false;
  for (const collection of SEALED_RECORD_COLLECTIONS) {
    const { rows, more } = await reader.firstOf<{ _id: string }>(collection, max);
    boundReached ||= more;
    checked += rows.length;
    for (const row of rows) {
      const problem = await deps.repos.sealed.currentProblem(collection, row);
      if (problem) violations.push({ collection, record_id: String(row._id), problem });
    }
  }
  const ends = await reader.firstOf<{ _id: string }>('action_ends', max);
  boundReached ||= ends.more;
  checked += ends.rows.length;
  for (const end of ends.rows) {
    const problem = await endProblem(deps, String(end._id));
    if (problem)
      violations.push({ collection: 'action_ends', record_id: String(end._id), problem });
  }
  return { checked, violations, bound_reached: boundReached };
}

/** Why an action's end record is not to be believed, or null. */
async function endProblem(deps: Deps, actionId: string): Promise<string | null> {
  try {
    const end = await deps.repos.externalActions.endOf(actionId);
    if (!end) return null; // gone since the read
    if (end.entry.seal === undefined)
      return `the ledger entry it names (seq ${end.seq}) is unsealed`;
    const problem = sealProblem(deps.acceptedLedgerKeys, end.entry);
    return problem && `the ledger entry it names (seq ${end.seq}): ${problem}`;
  } catch (error) {
    if (error instanceof RecordIntegrityError) return error.problem;
    throw error;
  }
}
