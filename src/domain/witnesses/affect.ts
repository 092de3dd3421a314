import type { DomainInfra } from '../infra';
import {
  MAX_WITNESS_RECORDS,
  inputsOf,
  windowEndingNow,
  type WitnessHeader,
  type WitnessInput,
} from './inputs';

type Deps = Pick<DomainInfra, 'witnesses'>;

/** Ledger events the affect witness counts, and which way each pulls. */
export const POSITIVE_OUTCOMES = ['executed', 'approved'] as const;
export const NEGATIVE_OUTCOMES = ['failed', 'rejected', 'expired'] as const;
/** Outcomes per minute of window at which arousal saturates at 1. */
export const AROUSAL_SATURATION_PER_MINUTE = 1;

export interface AffectOutcomes {
  executed: number;
  approved: number;
  failed: number;
  rejected: number;
  expired: number;
  conflicts: number;
}

export interface Affect extends WitnessHeader {
  valence: number;
  arousal: number;
  outcomes: AffectOutcomes;
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/**
 * The affect formula (docs/witnesses.md), pure: valence is (good − bad) / (good + bad), 0
 * when nothing happened; arousal is the outcomes per minute of window, capped at 1.
 */
export function affectOf(outcomes: AffectOutcomes, windowSeconds: number) {
  const good = outcomes.executed + outcomes.approved;
  const bad = outcomes.failed + outcomes.rejected + outcomes.expired + outcomes.conflicts;
  const total = good + bad;
  return {
    valence: total === 0 ? 0 : round3((good - bad) / total),
    arousal: round3(Math.min(1, total / ((windowSeconds / 60) * AROUSAL_SATURATION_PER_MINUTE))),
  };
}

/**
 * `GET /v1/runtime/affect`: how the runtime's recent outcomes went, over the window ending
 * now: action transitions in the ledger (executed, approved, failed, rejected, expired) and
 * external events reconciled as conflicts.
 */
export async function affect(deps: Deps, windowSeconds: number, now = new Date()): Promise<Affect> {
  const window = windowEndingNow(windowSeconds, now);
  const fold = await deps.witnesses.current();
  // The fold keeps only outcome entries in time order, so the window is all that is read.
  const entries = fold.outcomes.between(window.from, window.to).slice(0, MAX_WITNESS_RECORDS);
  const conflicts = fold.conflicts.between(window.from, window.to).slice(0, MAX_WITNESS_RECORDS);
  const outcomes: AffectOutcomes = {
    executed: 0,
    approved: 0,
    failed: 0,
    rejected: 0,
    expired: 0,
    conflicts: conflicts.length,
  };
  for (const entry of entries) outcomes[entry.event as keyof AffectOutcomes] += 1;
  const read: WitnessInput[] = [
    ...entries.map((entry) => ({ kind: 'action_ledger', id: entry._id, version: 1 })),
    ...conflicts.map((row) => ({ kind: 'reconciliation', id: row._id, version: 1 })),
  ];
  const bounded = entries.length >= MAX_WITNESS_RECORDS || conflicts.length >= MAX_WITNESS_RECORDS;
  return {
    witness: 'affect',
    computed_at: now.toISOString(),
    window,
    inputs: inputsOf(read, {}, bounded),
    ...affectOf(outcomes, windowSeconds),
    outcomes,
  };
}
