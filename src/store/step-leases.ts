import { LRUCache } from 'lru-cache';
import type { WitnessJournalRepo } from './witness-journal.repo';

/**
 * A step lease, as the witness journal carries it: until `until` (ms since the epoch, the
 * writer's clock) the writing process may insert steps of session `_id` without journaling
 * each one. Readers that count steps probe the session's slot chain while a lease may be
 * in force (docs/witnesses.md, "Steps: leases instead of one change per step").
 */
export interface StepLease {
  /** The session. */
  _id: string;
  /** The lease's end, ms since the epoch. */
  until: number;
}

/** How long a lease lasts. */
export const STEP_LEASE_MS = 5_000;
/** A lease with less than this left is renewed before the next step (every few seconds). */
const RENEW_WITHIN_MS = STEP_LEASE_MS / 2;
/**
 * How far apart the clocks of two api processes may be: a reader keeps probing a session
 * until its own clock is this far past the lease's end. Also bounds the journal's slot
 * age (a lease's slot must outlive the lease, `SLOT_MIN_AGE_MS`).
 */
export const STEP_LEASE_CLOCK_SKEW_MS = 2_000;

/**
 * This process's step leases. A step is inserted only under a lease whose journal slot is
 * stored (so a reader that folds the journal after the step's 2xx knows to probe its
 * session); a step whose insert completes after its lease ended is followed by a new lease
 * before it is acknowledged (so a reader that stopped probing at the lease's end is told
 * to look again).
 */
export function createStepLeases(journal: Pick<WitnessJournalRepo, 'append'>) {
  /** Session → the end of the lease this process holds (stored in the journal). */
  const held = new LRUCache<string, number>({ max: 10_000 });
  /** Renewals in flight, shared by the steps that need one meanwhile. */
  const renewing = new Map<string, Promise<number>>();

  /** Journals a new lease for the session; resolves to its end once stored. */
  async function take(sessionId: string): Promise<number> {
    const until = Date.now() + STEP_LEASE_MS;
    const lease: StepLease = { _id: sessionId, until };
    await journal.append([{ kind: 'step_lease', record: lease }]);
    held.set(sessionId, Math.max(held.get(sessionId) ?? 0, until));
    return until;
  }

  return {
    /** A lease in force for the session (renewed first when nearly over); answers its end. */
    async ensure(sessionId: string): Promise<number> {
      const until = held.get(sessionId) ?? 0;
      if (until - Date.now() > RENEW_WITHIN_MS) return until;
      let renewal = renewing.get(sessionId);
      if (!renewal) {
        renewal = take(sessionId).finally(() => renewing.delete(sessionId));
        renewing.set(sessionId, renewal);
      }
      return renewal;
    },
    /**
     * Called once a step is stored: when the store answered after the lease it was written
     * under had ended, a new lease, journaled after the step, tells readers to probe again.
     */
    async after(sessionId: string, leaseEnd: number): Promise<void> {
      if (Date.now() >= leaseEnd) await take(sessionId);
    },
  };
}

export type StepLeases = ReturnType<typeof createStepLeases>;
