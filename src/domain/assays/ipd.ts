import { mersenne } from 'pure-rand';
import { STRATEGIES, type Strategy } from './schemas';

/**
 * The iterated prisoner's dilemma of the social assays (docs/assays.md,
 * docs/assays.md). Moves are the bytes `C` (cooperate) and `D` (defect). The deterministic
 * strategies follow the Python `axelrod` library's definitions move for move (the tests
 * compare with reference plays it generated).
 */
export { STRATEGIES, type Strategy };

// Moves are stored as the letters they are shown as, so a history is its own text.
const C = 67; // 'C'
const D = 68; // 'D'
/** XOR turns one move into the other. */
const FLIP = C ^ D;

/**
 * A player's next move at `turn`, from both histories so far (moves as played, noise
 * included). One function over the strategy's index, not a closure per strategy: the hot
 * loop then calls one small function V8 inlines, instead of a call site that sees nine.
 * `grudge`: whether the opponent has defected yet (the one state a strategy keeps).
 */
function choose(
  strategy: number,
  turn: number,
  own: Uint8Array,
  other: Uint8Array,
  grudge: boolean,
  random: () => number,
): number {
  switch (strategy) {
    // axelrod TitForTat: cooperate first, then copy the opponent's last move.
    case TIT_FOR_TAT:
      return turn === 0 ? C : other[turn - 1];
    case ALWAYS_DEFECT:
      return D;
    case ALWAYS_COOPERATE:
      return C;
    // axelrod Grudger: cooperate until the opponent has defected once, then defect forever.
    case GRUDGER:
      return grudge ? D : C;
    // axelrod TitFor2Tats: defect only when the opponent's last two moves were both defections.
    case TIT_FOR_TWO_TATS:
      return turn >= 2 && other[turn - 1] === D && other[turn - 2] === D ? D : C;
    // axelrod SuspiciousTitForTat: defect first, then copy the opponent's last move.
    case SUSPICIOUS_TIT_FOR_TAT:
      return turn === 0 ? D : other[turn - 1];
    // axelrod Alternator: cooperate first, then the opposite of its own last move.
    case ALTERNATOR:
      return turn === 0 ? C : own[turn - 1] ^ FLIP;
    // axelrod WinStayLoseShift (memory one, four vector (1, 0, 0, 1)): cooperate first, then
    // cooperate exactly when both played the same move last turn.
    case WIN_STAY_LOSE_SHIFT:
      return turn === 0 || own[turn - 1] === other[turn - 1] ? C : D;
    // Cooperates with probability 1/2, from the match's generator.
    default:
      return random() < 0.5 ? C : D;
  }
}

const [
  TIT_FOR_TAT,
  ALWAYS_DEFECT,
  ALWAYS_COOPERATE,
  GRUDGER,
  TIT_FOR_TWO_TATS,
  SUSPICIOUS_TIT_FOR_TAT,
  ALTERNATOR,
  WIN_STAY_LOSE_SHIFT,
] = STRATEGIES.map((_, index) => index);

export interface Payoffs {
  R: number;
  S: number;
  T: number;
  P: number;
}
export const DEFAULT_PAYOFFS: Payoffs = { R: 3, S: 0, T: 5, P: 1 };

export interface MatchResult {
  /** Players, by name: the strategy, with `#k` when the round robin has it more than once. */
  a: string;
  b: string;
  repetition: number;
  score_a: number;
  score_b: number;
  moves_a: string;
  moves_b: string;
}

/** The seed of the `n`-th match of a run (0-based, in play order): seed + 2654435769·n mod 2³². */
export const matchSeed = (seed: number, n: number): number =>
  Number((BigInt(seed) + 2654435769n * BigInt(n)) % 0x100000000n);

const movesText = (moves: Uint8Array): string =>
  Buffer.from(moves.buffer, moves.byteOffset, moves.length).toString('latin1');

/**
 * One match of `turns` turns. Each turn draws, in this order and only when needed: A's
 * random move, B's random move, then A's noise flip and B's noise flip (each flips with
 * probability `noise`), all from one MT19937 generator seeded with `seed`.
 */
export function playMatch(
  a: Strategy,
  b: Strategy,
  options: { turns: number; noise?: number; seed?: number; payoffs?: Payoffs },
): Omit<MatchResult, 'repetition' | 'a' | 'b'> {
  const { turns, noise = 0, seed = 0, payoffs = DEFAULT_PAYOFFS } = options;
  const generator = mersenne(seed);
  // A uniform draw in [0, 1): an MT19937 output (unsigned 32-bit) / 2³².
  const random = () => (generator.unsafeNext() >>> 0) / 0x100000000;
  const noiseBelow = noise * 0x100000000;
  const [strategyA, strategyB] = [STRATEGIES.indexOf(a), STRATEGIES.indexOf(b)];
  const movesA = new Uint8Array(turns);
  const movesB = new Uint8Array(turns);
  // Indexed by (moveA - C) * 2 + (moveB - C): CC, CD, DC, DD.
  const gainA = [payoffs.R, payoffs.S, payoffs.T, payoffs.P];
  const gainB = [payoffs.R, payoffs.T, payoffs.S, payoffs.P];
  let [scoreA, scoreB] = [0, 0];
  let [grudgeA, grudgeB] = [false, false];
  for (let turn = 0; turn < turns; turn += 1) {
    if (turn > 0) {
      grudgeA ||= movesB[turn - 1] === D;
      grudgeB ||= movesA[turn - 1] === D;
    }
    let moveA = choose(strategyA, turn, movesA, movesB, grudgeA, random);
    let moveB = choose(strategyB, turn, movesB, movesA, grudgeB, random);
    if (noise > 0) {
      // u / 2³² < noise exactly when u < noise · 2³² (both sides exact in doubles).
      if (generator.unsafeNext() >>> 0 < noiseBelow) moveA ^= FLIP;
      if (generator.unsafeNext() >>> 0 < noiseBelow) moveB ^= FLIP;
    }
    movesA[turn] = moveA;
    movesB[turn] = moveB;
    const outcome = (moveA - C) * 2 + (moveB - C);
    scoreA += gainA[outcome];
    scoreB += gainB[outcome];
  }
  return {
    score_a: scoreA,
    score_b: scoreB,
    moves_a: movesText(movesA),
    moves_b: movesText(movesB),
  };
}

export interface TournamentInput {
  strategies: Strategy[];
  turns: number;
  repetitions: number;
  noise: number;
  seed: number;
  payoffs: Payoffs;
}

/** Player names: the strategy, or `<strategy>#<k>` (k from 1) for one listed more than once. */
export function playerNames(strategies: readonly Strategy[]): string[] {
  const seen = new Map<string, number>();
  return strategies.map((strategy) => {
    if (strategies.filter((s) => s === strategy).length === 1) return strategy;
    const k = (seen.get(strategy) ?? 0) + 1;
    seen.set(strategy, k);
    return `${strategy}#${k}`;
  });
}

/**
 * A round robin: every distinct pair of players (i < j, in the order given) plays once per
 * repetition, no self-play; the n-th match played gets `matchSeed(seed, n)`. Totals add each
 * player's scores over its matches; the ranking orders by total, then by name.
 */
export function roundRobin(input: TournamentInput) {
  const names = playerNames(input.strategies);
  const matches: MatchResult[] = [];
  const totals: Record<string, number> = Object.fromEntries(names.map((name) => [name, 0]));
  for (let repetition = 1; repetition <= input.repetitions; repetition += 1) {
    for (let i = 0; i < names.length; i += 1) {
      for (let j = i + 1; j < names.length; j += 1) {
        const match = playMatch(input.strategies[i], input.strategies[j], {
          turns: input.turns,
          noise: input.noise,
          seed: matchSeed(input.seed, matches.length),
          payoffs: input.payoffs,
        });
        const [a, b] = [names[i], names[j]];
        totals[a] = totals[a] + match.score_a;
        totals[b] = totals[b] + match.score_b;
        matches.push({ a, b, repetition, ...match });
      }
    }
  }
  const ranking = Object.entries(totals)
    .sort(([x, tx], [y, ty]) => ty - tx || (x < y ? -1 : x > y ? 1 : 0))
    .map(([player, total], index) => ({ rank: index + 1, player, total }));
  return { players: names, matches, totals, ranking };
}
