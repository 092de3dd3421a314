import type { ScaffoldKind } from '../engine/types';

/** A scaffold package: an environment template and the JSON Schema of its parameters. */
export interface Scaffold {
  scaffold_id: ScaffoldKind;
  name: string;
  description: string;
  version: string;
  default_envelope: string;
  params: Record<string, unknown>;
}

const startProperties = {
  ticks: { type: 'integer', minimum: 0, description: 'Ticks (generations) to run.' },
  seed: {
    type: 'integer',
    minimum: 0,
    maximum: 4_294_967_295,
    description: 'Seed of a random start (mulberry32; cells drawn row-major).',
  },
  density: {
    type: 'number',
    minimum: 0,
    maximum: 1,
    default: 0.5,
    description: 'Share of live cells of a random start (with `seed` only).',
  },
};

/**
 * Every scaffold's parameters: a size, a rule and ticks, started from a seed or a pattern;
 * the scaffold describes its own size and rule properties and its pattern.
 */
const scaffoldParams = (
  sizeAndRule: Record<string, unknown>,
  pattern: Record<string, unknown>,
): Record<string, unknown> => ({
  type: 'object',
  additionalProperties: false,
  required: ['width', 'rule', 'ticks'],
  oneOf: [{ required: ['seed'] }, { required: ['pattern'] }],
  properties: { ...sizeAndRule, ...startProperties, pattern },
});

/** The scaffolds, in id order. */
export const SCAFFOLDS: readonly Scaffold[] = [
  {
    scaffold_id: 'elementary-1d',
    name: 'Elementary 1-D',
    description:
      'A Wolfram elementary cellular automaton (rules 0..255) on a ring of `width` cells. Start from a seeded random row or a pattern (`single`: one live cell in the middle, or one row of RLE / `.#` text).',
    version: '1',
    default_envelope: 'elementary-standard',
    params: scaffoldParams(
      {
        width: { type: 'integer', minimum: 1, description: 'Cells in the ring.' },
        height: { type: 'integer', const: 1, description: 'Always 1 when given.' },
        rule: { type: 'integer', minimum: 0, maximum: 255, description: 'Wolfram rule number.' },
      },
      { type: 'string', description: '`single`, or one row of RLE or `.#` text.' },
    ),
  },
  {
    scaffold_id: 'life-lattice',
    name: 'Life lattice',
    description:
      'A 2-D outer-totalistic cellular automaton on a torus, rule in B/S notation (`B3/S23` Conway, `B36/S23` HighLife, ...). Start from a seeded random lattice or a named / RLE pattern placed at the centre.',
    version: '1',
    default_envelope: 'lattice-standard',
    params: scaffoldParams(
      {
        width: { type: 'integer', minimum: 1, description: 'Columns.' },
        height: { type: 'integer', minimum: 1, description: 'Rows (default: `width`).' },
        rule: { type: 'string', pattern: '^B[0-8]*/S[0-8]*$', description: 'B/S rule.' },
      },
      {
        type: 'string',
        description:
          'A pattern name (`glider`, `blinker`, `r-pentomino`, `gosper-glider-gun`, ...) or RLE text.',
      },
    ),
  },
];
