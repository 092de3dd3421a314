/** Social assays (docs/assays.md): the request and the answer. */
import type { Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';

/** The strategies a player can follow (their definitions: `ipd.ts`, after `axelrod`). */
export const STRATEGIES = [
  'tit_for_tat',
  'always_defect',
  'always_cooperate',
  'grudger',
  'tit_for_two_tats',
  'suspicious_tit_for_tat',
  'alternator',
  'win_stay_lose_shift',
  'random',
] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** Most players in one round robin (a strategy may be listed more than once). */
export const MAX_PLAYERS = 16;
export const MAX_TURNS = 10_000;
export const MAX_REPETITIONS = 10;

const payoff = (what: string) => schema.decimal(what, -1000, 1000);
const strategy = schema.choice(STRATEGIES, 'A strategy.');

export const assayId = (description: string) => schema.idRef('asy', description);

/** Body of `POST /v1/assays/social/run`. */
export const runAssayBody = schema.closedObject(
  {
    strategies: schema.arrayOf(
      strategy,
      'Players of the round robin, by strategy (a strategy listed twice plays as `<name>#1`, `<name>#2`).',
      { minItems: 2, maxItems: MAX_PLAYERS },
    ),
    turns: schema.integer('Turns per match.', 1, MAX_TURNS),
    repetitions: schema.integer('Repetitions of the round robin.', 1, MAX_REPETITIONS, 1),
    noise: schema.decimal('Chance each move is flipped.', 0, 0.5, 0),
    seed: schema.integer(
      'Seed of `random` and of the noise (docs/assays.md).',
      0,
      4_294_967_295,
      0,
    ),
    payoffs: schema.closedObject(
      {
        R: payoff('Reward: both cooperate.'),
        S: payoff("Sucker's payoff: cooperating against a defection."),
        T: payoff('Temptation: defecting against a cooperation.'),
        P: payoff('Punishment: both defect.'),
      },
      ['R', 'S', 'T', 'P'],
    ),
  },
  ['strategies', 'turns'],
);
export type RunAssayBody = Static<typeof runAssayBody>;

const player = schema.text('Player: its strategy, with `#k` when listed more than once.', 40);
const artifactRef = schema.view(
  {
    artifact_id: schema.idRef('art', 'Artifact id.'),
    path: schema.text('`assays/<assay_id>/result.json` (`.json.gz` past 12 MiB).', 200),
    content_type: schema.text('`application/json`, or `application/gzip` when compressed.', 64),
    size: schema.count('Bytes stored.'),
    sha256: schema.text('sha256 of the bytes stored (hex).', 64),
  },
  ['artifact_id', 'path', 'content_type', 'size', 'sha256'],
);

export const assayView = schema.view(
  {
    assay_id: assayId('Assay id.'),
    game: schema.choice(['iterated_prisoners_dilemma'] as const, 'The game.'),
    strategies: schema.arrayOf(strategy, 'Strategies as asked.', { maxItems: MAX_PLAYERS }),
    players: schema.arrayOf(player, 'Players, in the order given.', { maxItems: MAX_PLAYERS }),
    turns: schema.integer('Turns per match.', 1, MAX_TURNS),
    repetitions: schema.integer('Repetitions.', 1, MAX_REPETITIONS),
    noise: schema.decimal('Noise.', 0, 0.5),
    seed: schema.integer('Seed used.', 0, 4_294_967_295),
    payoffs: schema.freeObject('`R`, `S`, `T`, `P`.'),
    matches: schema.arrayOf(
      schema.view(
        {
          a: player,
          b: player,
          repetition: schema.integer('Repetition (from 1).', 1, MAX_REPETITIONS),
          score_a: schema.decimal('Score of a.', -1e9, 1e9),
          score_b: schema.decimal('Score of b.', -1e9, 1e9),
          moves_a: schema.text("a's moves, `C` or `D` per turn.", MAX_TURNS),
          moves_b: schema.text("b's moves, `C` or `D` per turn.", MAX_TURNS),
        },
        ['a', 'b', 'repetition', 'score_a', 'score_b', 'moves_a', 'moves_b'],
      ),
      'Every match, repetition by repetition, pairs in order (i < j).',
      { maxItems: ((MAX_PLAYERS * (MAX_PLAYERS - 1)) / 2) * MAX_REPETITIONS },
    ),
    totals: schema.freeObject("Each player's total score over its matches."),
    ranking: schema.arrayOf(
      schema.view(
        {
          rank: schema.integer('Rank (from 1).', 1, MAX_PLAYERS),
          player,
          total: schema.decimal('Total score.', -1e12, 1e12),
        },
        ['rank', 'player', 'total'],
      ),
      'Players by total, highest first (ties by name).',
      { maxItems: MAX_PLAYERS },
    ),
    computed_at: schema.dateTime('When it ran.'),
    artifact: artifactRef,
  },
  [
    'assay_id',
    'game',
    'strategies',
    'players',
    'turns',
    'repetitions',
    'noise',
    'seed',
    'payoffs',
    'matches',
    'totals',
    'ranking',
    'computed_at',
    'artifact',
  ],
);
