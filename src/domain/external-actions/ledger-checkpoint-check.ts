import type { ActionLedgerEntry, ExternalActionsRepo } from '../../store/external-actions.repo';
import type { CheckpointIndex } from './checkpoint-index';

/**
 * The ledger read against the signed checkpoints before an action's records and effects
 * (docs/actions.md, "Resets"). A checkpoint is appended, outside the database, after every
 * recorded batch; so a validly signed one naming a seq the ledger no longer reaches, or
 * another head at a seq the ledger holds, means the ledger was cut or rewritten since (by
 * whoever holds the database, or by a restore of an older backup). Recording onto such a
 * ledger would write over what the checkpoints prove was there, and acting on it would
 * repeat what its lost entries record (an effect already applied).
 */
export interface CheckpointMismatch {
  action_id: string;
  /** The checkpoint the ledger disagrees with. */
  checkpoint: { seq: number; head: string };
  /** The ledger there: its entry at the checkpoint's seq, or its newest when it ends before. */
  ledger: { seq: number; head: string | null };
  problem: string;
}

/** A record refused because the ledger disagrees with a checkpoint; nothing was written. */
export class LedgerOffCheckpoint extends Error {
  constructor(readonly mismatch: CheckpointMismatch) {
    super(mismatch.problem);
    this.name = 'LedgerOffCheckpoint';
  }
}

const short = (digest: string) => `${digest.slice(0, 23)}…`;

/**
 * Where the ledger of `actionId`, read from `fromSeq` to its newest entry (`entries`, in
 * order, as `entriesFrom` reads them), contradicts a validly signed checkpoint at `fromSeq`
 * or after, or null. The checkpoint furthest on is named, since it says how far the ledger
 * reached. Checkpoints before `fromSeq` are not looked at: the entry at `fromSeq` chains
 * them.
 */
export async function checkpointMismatch(
  index: Pick<CheckpointIndex, 'claimsOf' | 'verified'>,
  actionId: string,
  fromSeq: number,
  entries: readonly Pick<ActionLedgerEntry, 'seq' | 'digest'>[],
): Promise<CheckpointMismatch | null> {
  const claims = index.claimsOf(actionId);
  if (claims.length === 0) return null;
  const newest = entries[entries.length - 1];
  const newestSeq = newest?.seq ?? fromSeq - 1;
  const digestAt = new Map(entries.map((entry) => [entry.seq, entry.digest]));
  const contradicting = claims
    .filter((claim) => claim.seq >= fromSeq && digestAt.get(claim.seq) !== claim.head)
    .sort((a, b) => b.seq - a.seq);
  for (const claim of contradicting) {
    // Unsigned or signed by a key not accepted: anyone who can write the file could add it.
    if (!(await index.verified(claim))) continue;
    const checkpoint = { seq: claim.seq, head: claim.head };
    const held = digestAt.get(claim.seq);
    if (held === undefined) {
      const ledger = { seq: newestSeq, head: newest?.digest ?? null };
      const where = newest
        ? `whose newest entry is seq ${newestSeq} (head ${short(newest.digest)})`
        : `which holds no entry from seq ${fromSeq} on`;
      return {
        action_id: actionId,
        checkpoint,
        ledger,
        problem: `the signed checkpoint at seq ${claim.seq} (head ${short(claim.head)}) is beyond the ledger, ${where}: the ledger was cut after the checkpoint was written`,
      };
    }
    return {
      action_id: actionId,
      checkpoint,
      ledger: { seq: claim.seq, head: held },
      problem: `the signed checkpoint at seq ${claim.seq} names head ${short(claim.head)}, but the ledger holds ${short(held)} at seq ${claim.seq}: the ledger was rewritten after the checkpoint was written`,
    };
  }
  return null;
}

/**
 * Before a batch is recorded from seq `fromSeq` on: a refresh and a lookup, and only when a
 * checkpoint already reaches `fromSeq` (a retry, a reset's run redoing what the ledger holds,
 * or a ledger cut back) a read of the ledger from there, which must hold what the
 * checkpoints name. A batch that would be written where a checkpoint names another entry
 * is refused before anything is written.
 */
export async function batchCheckpointMismatch(
  index: CheckpointIndex,
  ledgerRepo: Pick<ExternalActionsRepo, 'entriesFrom'>,
  actionId: string,
  fromSeq: number,
): Promise<CheckpointMismatch | null> {
  await index.refresh();
  if (!index.claimsOf(actionId).some((claim) => claim.seq >= fromSeq)) return null;
  const entries = await ledgerRepo.entriesFrom(actionId, fromSeq);
  return checkpointMismatch(index, actionId, fromSeq, entries);
}
