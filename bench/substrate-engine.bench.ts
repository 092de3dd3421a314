import {
  LifeLattice,
  parseLifeRule,
  randomCells,
  ReferenceLattice,
  type LatticeStart,
  type Substrate,
} from '../src/domain/substrates/engine';
import type { BenchContext, BenchReport } from './lib/report';

const SIZE = 1024;
const RULE = 'B3/S23';
const SEED = 1;
const DENSITY = 0.5;
const FAST_GENERATIONS = 200;
/** The reference is ~25× slower; its rate is per cell update, so fewer generations suffice. */
const REFERENCE_GENERATIONS = 20;
const WARMUP_GENERATIONS = 5;
const TARGET_SPEEDUP = 20;

type Round = { cellUpdatesPerSecond: number; generations: number; ms: number };

/**
 * Substrate engine: cell updates per second of the bit-sliced life lattice against the plain
 * one-byte-per-cell reference, both on the same 1024 x 1024 B3/S23 random start (seed 1,
 * density 0.5), in process (no servers). Target: ≥ 20× the reference, and both engines reach
 * the same digest after the same number of generations.
 */
export async function substrateEngineBench(ctx: BenchContext): Promise<BenchReport> {
  const start: LatticeStart = {
    width: SIZE,
    height: SIZE,
    rule: parseLifeRule(RULE),
    cells: randomCells(SIZE, SIZE, SEED, DENSITY),
  };
  // Warm both up (JIT) on throwaway copies, then time fresh ones from the same start.
  new LifeLattice(start).step(WARMUP_GENERATIONS * 4);
  new ReferenceLattice(start).step(WARMUP_GENERATIONS);

  const fastRounds: Round[] = [];
  const referenceRounds: Round[] = [];
  let sameDigest = true;
  for (let round = 0; round < ctx.rounds; round += 1) {
    const fast = new LifeLattice(start);
    const reference = new ReferenceLattice(start);
    referenceRounds.push(measure(reference, REFERENCE_GENERATIONS));
    const fastAtReference = fast.clone();
    fastAtReference.step(REFERENCE_GENERATIONS);
    sameDigest &&= fastAtReference.digest() === reference.digest();
    fastRounds.push(measure(fast, FAST_GENERATIONS));
  }
  // The full run as well: the reference's 200th generation, computed once, outside the timing.
  const referenceFull = new ReferenceLattice(start);
  referenceFull.step(FAST_GENERATIONS);
  const fastFull = new LifeLattice(start);
  fastFull.step(FAST_GENERATIONS);
  sameDigest &&= fastFull.digest() === referenceFull.digest();

  const fast = meanRound(fastRounds);
  const reference = meanRound(referenceRounds);
  const speedup =
    Math.round((fast.cellUpdatesPerSecond / reference.cellUpdatesPerSecond) * 10) / 10;
  return {
    suite: 'substrate-engine',
    description: `Life lattice engine, ${SIZE}x${SIZE} ${RULE}, random start (seed ${SEED}, density ${DENSITY}), in process: the bit-sliced engine over ${FAST_GENERATIONS} generations vs the one-byte-per-cell reference over ${REFERENCE_GENERATIONS} (the rate is per cell update; the reference is slow), mean of ${ctx.rounds} rounds. Digests compared after ${REFERENCE_GENERATIONS} and ${FAST_GENERATIONS} generations.`,
    results: { fast, reference },
    ratios: { speedup },
    targets: [
      { name: `cell updates/s ≥ ${TARGET_SPEEDUP}× the reference`, met: speedup >= TARGET_SPEEDUP },
      { name: 'same digest as the reference after the same generations', met: sameDigest },
    ],
  };
}

function measure(substrate: Substrate, generations: number): Round {
  const t0 = process.hrtime.bigint();
  substrate.step(generations);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cellUpdates = substrate.width * substrate.height * generations;
  return {
    cellUpdatesPerSecond: Math.round((cellUpdates / ms) * 1000),
    generations,
    ms: Math.round(ms * 10) / 10,
  };
}

function meanRound(rounds: Round[]): Round {
  const mean = (pick: (r: Round) => number) =>
    rounds.reduce((sum, r) => sum + pick(r), 0) / rounds.length;
  return {
    cellUpdatesPerSecond: Math.round(mean((r) => r.cellUpdatesPerSecond)),
    generations: rounds[0]?.generations ?? 0,
    ms: Math.round(mean((r) => r.ms) * 10) / 10,
  };
}
