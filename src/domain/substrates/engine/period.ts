import type { Substrate } from './types';

/** A repeat found by `detectPeriod`. */
export interface PeriodFound {
  /** Ticks between two equal states (1 for a still life or an empty world). */
  period: number;
  /** Absolute tick where the cycle starts: the first state that recurs. */
  first_repeat_tick: number;
  /** Generations stepped to find it. */
  ticks_examined: number;
}

/**
 * Steps a clone of `substrate` up to `maxTicks` generations and reports the first state that
 * repeats an earlier one, or null. States are compared by digest (sha256 of the canonical
 * state); a collision is not a practical concern. The substrate itself is not advanced.
 */
export function detectPeriod(substrate: Substrate, maxTicks: number): PeriodFound | null {
  if (!Number.isSafeInteger(maxTicks) || maxTicks < 0)
    throw new RangeError(`maxTicks ${maxTicks} is not a non-negative integer`);
  const probe = substrate.clone();
  const start = probe.tick;
  const seenAt = new Map<string, number>([[probe.digest(), start]]);
  for (let stepped = 1; stepped <= maxTicks; stepped += 1) {
    probe.step();
    const digest = probe.digest();
    const earlier = seenAt.get(digest);
    if (earlier !== undefined)
      return { period: probe.tick - earlier, first_repeat_tick: earlier, ticks_examined: stepped };
    seenAt.set(digest, probe.tick);
  }
  return null;
}
