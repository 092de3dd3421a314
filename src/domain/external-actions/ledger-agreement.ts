import type { ActionLedgerEntry } from '../../store/external-actions.repo';
import {
  FINAL_ACTION_STATUSES,
  type ActionActor,
  type ActionStatus,
} from '../../workflows/external-action.contract';

/**
 * Whether a run's transitions agree with the action's ledger (docs/actions.md, "Resets").
 * The ledger, not the workflow's history, says what happened: a reset can start a run whose
 * state lacks decisions the ledger holds, or that goes on after the action ended. Such a run
 * must not record, nor act.
 */

/** What a run wants to record at one `seq`: enough to tell whether it is already there. */
export interface IntendedEntry {
  seq: number;
  event: string;
  status: ActionStatus;
  actor: ActionActor | null;
  detail?: Record<string, unknown>;
}

export type LedgerAgreement =
  | { agrees: true }
  | {
      agrees: false;
      /** The first `seq` at which the run and the ledger disagree. */
      at_seq: number;
      /** Why, for the ledger entry and the run's failure. */
      problem: string;
      /** The ledger's newest entry (what the refusal chains to), null for an empty ledger. */
      newest: ActionLedgerEntry | null;
    };

export const isFinalStatus = (status: ActionStatus): boolean =>
  FINAL_ACTION_STATUSES.includes(status);

/** The signed decision an entry records, by its id (`decision_id`), if it records one. */
const decisionIdOf = (detail: Record<string, unknown> | undefined): string | null => {
  const decision = detail?.['decision'] as { decision_id?: unknown } | undefined;
  return typeof decision?.decision_id === 'string' ? decision.decision_id : null;
};

/**
 * Whether a stored entry records the transition a run intends at the same `seq`: the same
 * event into the same status by the same actor, and for a decision the same signed decision.
 * Times differ when a reset run redoes a transition live, so they are not compared: the
 * stored entry stands, and the run chains on from it.
 */
export function sameTransition(
  stored: ActionLedgerEntry,
  intended: IntendedEntry,
  runId: string | null = null,
): boolean {
  const sameStep =
    stored.seq === intended.seq &&
    stored.event === intended.event &&
    stored.status === intended.status;
  // Written by this very run: a workflow task of it that Temporal did not keep (a lost
  // speculative task under concurrent updates) took the step with another of the concurrent
  // decisions. The history Temporal kept is this run's; the entry stands as written.
  if (sameStep && runId !== null && stored.run_id === runId) return true;
  return (
    sameStep &&
    (stored.actor?.principal_id ?? null) === (intended.actor?.principal_id ?? null) &&
    (stored.actor?.key_id ?? null) === (intended.actor?.key_id ?? null) &&
    decisionIdOf(stored.detail) === decisionIdOf(intended.detail)
  );
}

/**
 * Judges a batch a run wants to record against the ledger's entries from the batch's
 * `seq - 1` on (`ledger`, in order). It agrees when the run's head is the ledger's entry just
 * before the batch, each entry already there is the same transition (a retry, or a reset run
 * redoing what the ledger holds), and the ledger has not ended the action beyond the batch or
 * before it (a run never leaves a final status).
 */
export function ledgerAgreement(
  batch: { head: string | null; run_id?: string | null; entries: readonly IntendedEntry[] },
  ledger: readonly ActionLedgerEntry[],
): LedgerAgreement {
  const first = batch.entries[0];
  const last = batch.entries[batch.entries.length - 1];
  if (!first || !last) throw new Error('no transition to judge');
  const newest = ledger.length > 0 ? ledger[ledger.length - 1] : null;
  const at = (seq: number) => ledger.find((entry) => entry.seq === seq);
  const refuse = (at_seq: number, problem: string): LedgerAgreement => ({
    agrees: false,
    at_seq,
    problem,
    newest,
  });
  if (first.seq > 1) {
    const before = at(first.seq - 1);
    if (!before || before.digest !== batch.head) {
      return refuse(
        first.seq - 1,
        `the run's ledger head at seq ${first.seq - 1} is not the ledger's (${before ? 'another entry' : 'no entry'})`,
      );
    }
    if (isFinalStatus(before.status) && !isFinalStatus(first.status)) {
      return refuse(first.seq, `the action is already ${before.status} (ledger seq ${before.seq})`);
    }
  }
  for (const intended of batch.entries) {
    const stored = at(intended.seq);
    if (stored && !sameTransition(stored, intended, batch.run_id ?? null)) {
      return refuse(
        intended.seq,
        isFinalStatus(stored.status)
          ? `the action is already ${stored.status} (ledger seq ${stored.seq})`
          : `the ledger holds ${stored.event} at seq ${stored.seq}, not this run's ${intended.event}`,
      );
    }
  }
  if (newest && newest.seq > last.seq && isFinalStatus(newest.status)) {
    return refuse(
      last.seq + 1,
      `the action is already ${newest.status} (ledger seq ${newest.seq}); this run is behind it`,
    );
  }
  return { agrees: true };
}

/** Decision events: a run that starts over cannot re-take them (their updates are gone). */
const DECISION_EVENTS = new Set(['approval_recorded', 'approved', 'rejected', 'executing']);

/**
 * Why a run that opens an action the ledger already holds (a reset to the first workflow
 * task) may not go on, or null when it may: it may redo the proposal and wait, but decisions
 * the ledger recorded arrived as updates to the run it replaced, and an update reapplied to
 * a run that has not opened yet is refused, so the new run would wait without them.
 */
export function reopenProblem(ledger: readonly ActionLedgerEntry[]): string | null {
  const newest = ledger.length > 0 ? ledger[ledger.length - 1] : null;
  if (!newest) return null;
  if (isFinalStatus(newest.status)) {
    return `the action is already ${newest.status} (ledger seq ${newest.seq})`;
  }
  const decision = ledger.find((entry) => DECISION_EVENTS.has(entry.event));
  return decision
    ? `the ledger holds ${decision.event} at seq ${decision.seq}, which a run started over cannot take again`
    : null;
}
