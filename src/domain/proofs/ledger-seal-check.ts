import type { ActionLedgerEntry, ActionRecord } from '../../store/external-actions.repo';
import type { LedgerCheckpoint } from '../external-actions/ledger-checkpoints';
import { checkpointProblem, sealProblem } from '../external-actions/ledger-seal';
import type { ActionDecision } from '../../workflows/external-action.contract';
import type { Violation } from './schemas';

/**
 * What a database holder cannot recompute (docs/actions.md, "What the ledger protects
 * against whom"): each entry's seal and the checkpoints in the file outside the database,
 * both signed with the service's ledger key. Used by `action_ledger_chain`.
 */
export interface Sealing {
  /** Public keys (hex) whose seals and checkpoints are accepted. */
  acceptedKeys: readonly string[];
  /** The checkpoint file's lines, for this database. */
  checkpoints: readonly LedgerCheckpoint[];
  /** The check's clock (the grace of `CHECKPOINT_GRACE_MS`, `PROJECTION_GRACE_MS`). */
  now: Date;
}

/**
 * How long an entry may stand past the last checkpoint of its action before that is a
 * violation: the checkpoint is appended right after the entries, so only a batch being
 * recorded while the check reads (or one whose append keeps failing) is in between.
 */
export const CHECKPOINT_GRACE_MS = 5 * 60_000;

/** How long a projection may stay behind its ledger: the record writes it right after. */
export const PROJECTION_GRACE_MS = 5 * 60_000;

const short = (digest: unknown) => `${String(digest).slice(0, 19)}…`;

const ledgerViolation = (recordId: string, problem: string): Violation => ({
  collection: 'action_ledger',
  record_id: recordId,
  problem,
});

/**
 * The seal and checkpoint rules over each action's chain (in `seq` order):
 * - a sealed entry's seal is by an accepted key and verifies over its id and digest;
 * - an entry without a seal is flagged (`unsealed`), whatever its `at` says: a date is the
 *   writer's word, and whoever writes the database writes it. Entries written before sealing
 *   existed are sealed once by the operator's `seal-records` command (docs/proofs.md);
 * - every valid checkpoint's (seq, head) is in the ledger: the entry exists (judged when
 *   every entry was read: `complete`) and its digest is the head;
 * - an action's newest entry, when sealed and older than the grace, is reached by a
 *   checkpoint (else the checkpoint file is missing, cut, or not shared by every writer).
 * A checkpoint line whose signature does not hold is itself a violation and is not used.
 */
export function sealViolations(
  byAction: Map<string, ActionLedgerEntry[]>,
  sealing: Sealing,
  complete: boolean,
): Violation[] {
  const violations: Violation[] = [];
  const checkpointsOf = new Map<string, LedgerCheckpoint[]>();
  for (const checkpoint of sealing.checkpoints) {
    const problem = checkpointProblem(sealing.acceptedKeys, checkpoint);
    if (problem) {
      violations.push({
        collection: 'ledger_checkpoints',
        record_id: `${checkpoint.action_id}:${checkpoint.seq}`,
        problem,
      });
      continue;
    }
    const list = checkpointsOf.get(checkpoint.action_id) ?? [];
    list.push(checkpoint);
    checkpointsOf.set(checkpoint.action_id, list);
  }

  for (const [actionId, chain] of byAction) {
    const checkpoints = checkpointsOf.get(actionId) ?? [];
    let firstSealed: string | null = null;
    for (const entry of chain) {
      if (entry.seal !== undefined) {
        const problem = sealProblem(sealing.acceptedKeys, entry);
        if (problem) violations.push(ledgerViolation(entry._id, problem));
        firstSealed ??= entry._id;
        continue;
      }
      const covering = checkpoints.find((c) => c.from_seq <= entry.seq && entry.seq <= c.seq);
      const why = firstSealed
        ? `, after sealed entry ${firstSealed}`
        : covering
          ? `, though the checkpoint of ${covering.at} covers seq ${covering.from_seq}..${covering.seq}`
          : ' (an entry written before sealing existed is sealed by `seal-records`)';
      violations.push(ledgerViolation(entry._id, `it is unsealed${why}`));
    }
    violations.push(...checkpointViolations(actionId, chain, checkpoints, complete));
    const newest = chain[chain.length - 1];
    const reached = Math.max(0, ...checkpoints.map((c) => c.seq));
    if (
      complete &&
      newest?.seal !== undefined &&
      newest.seq > reached &&
      sealing.now.getTime() - Date.parse(newest.at) > CHECKPOINT_GRACE_MS
    ) {
      violations.push(
        ledgerViolation(
          newest._id,
          reached === 0
            ? 'no checkpoint names this action (the checkpoint file is missing, cut or not shared)'
            : `no checkpoint reaches it: the newest names seq ${reached}`,
        ),
      );
    }
  }
  // An action checkpointed but without a single entry left.
  if (complete) {
    for (const [actionId, checkpoints] of checkpointsOf) {
      if (!byAction.has(actionId)) {
        violations.push(...checkpointViolations(actionId, [], checkpoints, complete));
      }
    }
  }
  return violations;
}

/** Each checkpointed (seq, head) of one action against its chain, each pair once. */
function checkpointViolations(
  actionId: string,
  chain: readonly ActionLedgerEntry[],
  checkpoints: readonly LedgerCheckpoint[],
  complete: boolean,
): Violation[] {
  const violations: Violation[] = [];
  const bySeq = new Map(chain.map((entry) => [entry.seq, entry]));
  const judged = new Set<string>();
  for (const checkpoint of checkpoints) {
    const key = `${checkpoint.seq} ${checkpoint.head}`;
    if (judged.has(key)) continue;
    judged.add(key);
    const entry = bySeq.get(checkpoint.seq);
    if (!entry) {
      if (complete) {
        violations.push(
          ledgerViolation(
            `${actionId}:${checkpoint.seq}`,
            `the checkpoint of ${checkpoint.at} names seq ${checkpoint.seq} with head ${short(checkpoint.head)}, but the ledger has no such entry`,
          ),
        );
      }
    } else if (entry.digest !== checkpoint.head) {
      violations.push(
        ledgerViolation(
          entry._id,
          `the checkpoint of ${checkpoint.at} names head ${short(checkpoint.head)} for it, but its digest is ${short(entry.digest)}`,
        ),
      );
    }
  }
  return violations;
}

/**
 * `actions_match_ledger`: each stored action record (the projection the api shows and
 * decides on) is its ledger's: its `seq` entry exists, `ledger_head` is that entry's digest,
 * its `status` that entry's status, and its approvals the approvals its ledger records up to
 * there (by decision id, in order). A record behind its ledger is flagged once the newest
 * entry is older than the grace (the projection is written right after the entries).
 * `complete`: every ledger entry was read (else a record whose entries were not all read is
 * skipped, not judged).
 */
export function actionsMatchLedger(
  records: readonly ActionRecord[],
  byAction: Map<string, ActionLedgerEntry[]>,
  complete: boolean,
  now: Date,
): { checked: number; violations: Violation[] } {
  const violations: Violation[] = [];
  let checked = 0;
  for (const record of records) {
    const chain = byAction.get(record._id) ?? [];
    const whole = chain.length > 0 && chain[0].seq === 1 && chain.every((e, i) => e.seq === i + 1);
    if (!complete && !whole) continue;
    checked += 1;
    const problem = recordProblem(record, chain, now);
    if (problem) {
      violations.push({ collection: 'external_actions', record_id: record._id, problem });
    }
  }
  return { checked, violations };
}

function recordProblem(
  record: ActionRecord,
  chain: readonly ActionLedgerEntry[],
  now: Date,
): string | null {
  const entry = chain.find((e) => e.seq === record.seq);
  if (!entry) {
    return chain.length === 0
      ? 'it has no ledger entry'
      : `its seq ${record.seq} has no ledger entry (the ledger reaches seq ${chain[chain.length - 1].seq})`;
  }
  if (record.status !== entry.status) {
    return `status ${record.status}, but its ledger says ${entry.status} at ${entry._id}`;
  }
  if (record.ledger_head !== entry.digest) {
    return `its ledger_head ${short(record.ledger_head)} is not the digest of ${entry._id}`;
  }
  // Both come from the database: a field removed there is a difference, never a crash.
  const recorded = chain
    .filter((e) => e.seq <= record.seq)
    .map((e) => e.detail?.['decision'] as ActionDecision | undefined)
    .filter((d): d is ActionDecision => d?.decision === 'approve');
  const approvals: readonly ActionDecision[] = Array.isArray(record.approvals)
    ? record.approvals
    : [];
  const ids = (list: readonly ActionDecision[]) => list.map((d) => d?.decision_id).join(',');
  if (!Array.isArray(record.approvals) || ids(approvals) !== ids(recorded)) {
    const who = (list: readonly ActionDecision[]) =>
      list.map((d) => d?.principal_id).join(', ') || 'none';
    return `its approvals (${who(approvals)}) are not its ledger's (${who(recorded)})`;
  }
  const newest = chain[chain.length - 1];
  if (newest.seq > record.seq && now.getTime() - Date.parse(newest.at) > PROJECTION_GRACE_MS) {
    return `it stands at seq ${record.seq} (${record.status}), its ledger at ${newest._id} (${newest.status})`;
  }
  return null;
}
