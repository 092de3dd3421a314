import { canonicalDigest, digestHolds } from '../../lib/canonical-digest';
import type { RepairLedgerEntry, RepairRecord } from '../../store/repairs.repo';

/** The `prev_digest` of the first entry. */
export const LEDGER_GENESIS = `sha256:${'0'.repeat(64)}`;

/** The ledger entry of an ended repair, in the slot after `head`. */
export function ledgerEntryOf(
  record: RepairRecord,
  head: RepairLedgerEntry | null,
): RepairLedgerEntry {
  const body: Omit<RepairLedgerEntry, 'digest'> = {
    _id: (head?._id ?? 0) + 1,
    repair_id: record._id,
    object_id: record.object_id,
    strategy: record.strategy,
    outcome: record.status,
    plan_digest: record.plan?.digest ?? null,
    child_action_id: record.child_action_id,
    version: record.result?.version ?? null,
    at: record.completed_at ?? record.updated_at,
    prev_digest: head?.digest ?? LEDGER_GENESIS,
  };
  return { ...body, digest: canonicalDigest(body) };
}

/**
 * Checks entries: each matches its digest, and consecutive slots link. Answers the first
 * slot that does not, or null when all hold.
 */
export function firstBrokenEntry(entries: readonly RepairLedgerEntry[]): number | null {
  let previous: RepairLedgerEntry | undefined;
  for (const entry of entries) {
    if (!digestHolds(entry)) return entry._id;
    if (entry._id === 1 && entry.prev_digest !== LEDGER_GENESIS) return entry._id;
    if (previous && previous._id + 1 === entry._id && entry.prev_digest !== previous.digest) {
      return entry._id;
    }
    previous = entry;
  }
  return null;
}
