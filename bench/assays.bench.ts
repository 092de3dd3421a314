import { execFileSync } from 'node:child_process';
import { mersenne } from 'pure-rand';
import { DEFAULT_PAYOFFS, matchSeed, playerNames, roundRobin } from '../src/domain/assays/ipd';
import type { Strategy } from '../src/domain/assays/schemas';
import { createUnlimitedKey } from './lib/api';
import { startApiAndBare } from './lib/processes';
import type { BenchContext, BenchReport } from './lib/report';
import { percentile, timed } from './lib/stats';
import { benchPort } from './lib/ports';

const OURS_PORT = benchPort(18488);
const BARE_PORT = benchPort(18489);
const SAMPLES = Number(process.env['BENCH_ASSAY_SAMPLES'] ?? 3);

/** The bounds: 16 players (every strategy, `random` and a few more twice), 10,000 turns, 10 repetitions. */
const BODY = {
  strategies: [
    'tit_for_tat',
    'always_defect',
    'always_cooperate',
    'grudger',
    'tit_for_two_tats',
    'suspicious_tit_for_tat',
    'alternator',
    'win_stay_lose_shift',
    'random',
    'random',
    'tit_for_tat',
    'grudger',
    'alternator',
    'win_stay_lose_shift',
    'always_defect',
    'tit_for_two_tats',
  ] as Strategy[],
  turns: 10_000,
  repetitions: 10,
  noise: 0.05,
  seed: 7,
};

type Move = 'C' | 'D';
/** The reference: the same rules written plainly (histories as arrays of letters). */
type Player = (own: Move[], other: Move[], random: () => number) => Move;
const NAIVE: Record<Strategy, () => Player> = {
  tit_for_tat: () => (_own, other) => (other.length === 0 ? 'C' : other[other.length - 1]),
  always_defect: () => () => 'D',
  always_cooperate: () => () => 'C',
  grudger: () => {
    let grudge = false;
    return (_own, other) => {
      grudge ||= other[other.length - 1] === 'D';
      return grudge ? 'D' : 'C';
    };
  },
  tit_for_two_tats: () => (_own, other) =>
    other.length >= 2 && other[other.length - 1] === 'D' && other[other.length - 2] === 'D'
      ? 'D'
      : 'C',
  suspicious_tit_for_tat: () => (_own, other) =>
    other.length === 0 ? 'D' : other[other.length - 1],
  alternator: () => (own) => (own.length === 0 ? 'C' : own[own.length - 1] === 'C' ? 'D' : 'C'),
  win_stay_lose_shift: () => (own, other) =>
    own.length === 0 ? 'C' : own[own.length - 1] === other[other.length - 1] ? 'C' : 'D',
  random: () => (_own, _other, random) => (random() < 0.5 ? 'C' : 'D'),
};

/**
 * The reference round robin: the same rules (docs/assays.md) written plainly, with the same
 * seeded generator drawn in the same order (A's random move, B's, then A's noise flip,
 * B's), so its totals must equal ours, which the bench checks.
 */
function naiveRoundRobin(): Record<string, number> {
  const { R, S, T, P } = DEFAULT_PAYOFFS;
  const gain: Record<string, [number, number]> = { CC: [R, R], CD: [S, T], DC: [T, S], DD: [P, P] };
  const names = playerNames(BODY.strategies);
  const totals: Record<string, number> = {};
  let played = 0;
  for (let repetition = 0; repetition < BODY.repetitions; repetition += 1) {
    for (let i = 0; i < BODY.strategies.length; i += 1) {
      for (let j = i + 1; j < BODY.strategies.length; j += 1) {
        const generator = mersenne(matchSeed(BODY.seed, played));
        played += 1;
        const random = () => (generator.unsafeNext() >>> 0) / 2 ** 32;
        const flip = (move: Move): Move =>
          random() < BODY.noise ? (move === 'C' ? 'D' : 'C') : move;
        const [a, b] = [NAIVE[BODY.strategies[i]](), NAIVE[BODY.strategies[j]]()];
        const [movesA, movesB]: Move[][] = [[], []];
        let [scoreA, scoreB] = [0, 0];
        for (let turn = 0; turn < BODY.turns; turn += 1) {
          const chosenA = a(movesA, movesB, random);
          const chosenB = b(movesB, movesA, random);
          const moveA = flip(chosenA);
          const moveB = flip(chosenB);
          movesA.push(moveA);
          movesB.push(moveB);
          scoreA += gain[moveA + moveB][0];
          scoreB += gain[moveA + moveB][1];
        }
        totals[names[i]] = (totals[names[i]] ?? 0) + scoreA;
        totals[names[j]] = (totals[names[j]] ?? 0) + scoreB;
        // Like ours, each match's moves become text.
        if (movesA.join('').length + movesB.join('').length !== 2 * BODY.turns) {
          throw new Error('reference: wrong move count');
        }
      }
    }
  }
  return totals;
}

/** Turns per match axelrod plays (a smaller round robin: Python is far slower; rates compare). */
const AXELROD_TURNS = 1_000;

/**
 * The `axelrod` library (the assays' reference, installed into .tools by the script) timed
 * on the same round robin with fewer turns and one repetition: its turns per second, or
 * null when Python or pip is not available.
 */
function axelrodRate(): { turnsPerSecond: number; turns: number; seconds: number } | null {
  try {
    const python = execFileSync('bash', ['scripts/assays/axelrod-venv.sh'], {
      encoding: 'utf8',
    }).trim();
    const spec = { ...BODY, turns: AXELROD_TURNS, repetitions: 1 };
    const out = execFileSync(python, ['scripts/assays/axelrod_timing.py', JSON.stringify(spec)], {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    const { turns_played: turns, seconds } = JSON.parse(out) as {
      turns_played: number;
      seconds: number;
    };
    return { turnsPerSecond: turns / seconds, turns, seconds };
  } catch (error) {
    console.error(
      `axelrod timing skipped: ${error instanceof Error ? error.message : String(error)}`,
    );
    return null;
  }
}

/**
 * Social assays at the bounds (issue 14): `POST /v1/assays/social/run` with 16 players,
 * 10,000 turns and 10 repetitions (1,200 matches, 12 million turns; answered with every
 * move, and stored), timed from request to the whole answer; against a plain reference loop
 * over the same rules in this process, and our engine alone. Targets: the route within 2 s,
 * and its speed at least 5× the reference's.
 */
export async function assaysBench(ctx: BenchContext): Promise<BenchReport> {
  const servers = await startApiAndBare({
    ...ctx,
    suite: 'assays',
    oursPort: OURS_PORT,
    barePort: BARE_PORT,
  });
  try {
    const key = await createUnlimitedKey(servers.oursUrl, servers.adminKey);
    const route: number[] = [];
    let bytes = 0;
    for (let i = 0; i < SAMPLES + 1; i += 1) {
      const [body, ms] = await timed(async () => {
        const res = await fetch(`${servers.oursUrl}/v1/assays/social/run`, {
          method: 'POST',
          headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
          body: JSON.stringify(BODY),
        });
        if (!res.ok) throw new Error(`assay: ${res.status} ${await res.text()}`);
        return res.arrayBuffer();
      });
      bytes = body.byteLength;
      if (i > 0) route.push(ms); // the first warms the process up
    }
    const engine: number[] = [];
    const reference: number[] = [];
    let sameTotals = true;
    for (let i = 0; i < SAMPLES; i += 1) {
      const [ours, oursMs] = await timed(async () =>
        roundRobin({ ...BODY, payoffs: DEFAULT_PAYOFFS, strategies: BODY.strategies }),
      );
      engine.push(oursMs);
      const [theirs, theirsMs] = await timed(async () => naiveRoundRobin());
      reference.push(theirsMs);
      sameTotals &&= JSON.stringify(ours.totals) === JSON.stringify(theirs);
    }
    const axelrod = axelrodRate();
    const p50 = (ms: number[]) => ({ p50Ms: percentile(ms, 50), maxMs: percentile(ms, 100) });
    const round = (x: number) => Math.round(x * 100) / 100;
    const turnsAtBounds =
      ((BODY.strategies.length * (BODY.strategies.length - 1)) / 2) * BODY.repetitions * BODY.turns;
    const rate = (ms: number) => turnsAtBounds / (ms / 1000);
    const ratios = {
      routeVsAxelrod: axelrod ? round(rate(percentile(route, 50)) / axelrod.turnsPerSecond) : 0,
      engineVsAxelrod: axelrod ? round(rate(percentile(engine, 50)) / axelrod.turnsPerSecond) : 0,
      routeVsPlainLoop: round(percentile(reference, 50) / percentile(route, 50)),
      engineVsPlainLoop: round(percentile(reference, 50) / percentile(engine, 50)),
    };
    return {
      suite: 'assays',
      description: `Social assay at the bounds (16 players × 10,000 turns × 10 repetitions, noise 0.05) through the API (answer ${(bytes / 1e6).toFixed(1)} MB, stored as an artifact), our engine alone, a plain loop over the same rules and seeded draws (${SAMPLES} samples each), and the reference, Python axelrod 4.14 playing the same round robin at ${AXELROD_TURNS} turns and one repetition (rates per turn compared)`,
      results: {
        'ours: POST /v1/assays/social/run': p50(route),
        'ours: engine (roundRobin) alone': p50(engine),
        'reference: plain loop': p50(reference),
      },
      ratios,
      figures: {
        answerBytes: bytes,
        samples: SAMPLES,
        'route turns/s': Math.round(rate(percentile(route, 50))),
        'engine turns/s': Math.round(rate(percentile(engine, 50))),
        'plain loop turns/s': Math.round(rate(percentile(reference, 50))),
        'axelrod turns/s': axelrod ? Math.round(axelrod.turnsPerSecond) : 'not run',
        'axelrod turns timed': axelrod ? axelrod.turns : 0,
      },
      targets: [
        { name: 'the reference gives the same totals (same rules, same draws)', met: sameTotals },
        { name: 'answered within 2 s at the bounds', met: percentile(route, 100) <= 2000 },
        {
          name: 'route ≥ 5× the reference (axelrod 4.14, turns per second)',
          met: ratios.routeVsAxelrod >= 5,
        },
      ],
    };
  } finally {
    await servers.stop();
  }
}
