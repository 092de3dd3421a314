/**
 * The substrates' vocabulary and the schemas of their inputs (docs/substrates.md); request
 * types are derived from the schemas, never written twice.
 */
import { Type, type Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { idCursor, nameCursor } from '../../lib/cursor';

/** Scaffolds (docs/substrates.md). */
export const SCAFFOLD_NAMES = ['life-lattice', 'elementary-1d'] as const;
export type ScaffoldName = (typeof SCAFFOLD_NAMES)[number];

/** Deployment stages (docs/substrates.md). */
export const DEPLOYMENT_STAGES = [
  'validating',
  'compiling',
  'deploying',
  'observing',
  'assaying',
  'ready',
  'failed',
  'cancelled',
] as const;
export type DeploymentStage = (typeof DEPLOYMENT_STAGES)[number];

/** Render formats of a deployment. */
export const RENDER_FORMATS = ['json', 'markdown', 'svg'] as const;
export type RenderFormat = (typeof RENDER_FORMATS)[number];

/** Outer bounds of every spec; an envelope narrows them (a spec outside it fails validation). */
export const SPEC_LIMITS = { maxSide: 4096, maxTicks: 1_000_000, maxSeed: 4_294_967_295 } as const;

const deploymentId = (description: string) => schema.idRef('dep', description);
const tickField = (description: string) => schema.integer(description, 0, SPEC_LIMITS.maxTicks);

/** Schema of a substrate spec (also the `spec` of a deploy body). */
export const substrateSpecSchema = schema.closedObject(
  {
    scaffold: schema.choice(
      SCAFFOLD_NAMES,
      '`life-lattice`: 2-D outer-totalistic automaton on a torus; `elementary-1d`: a Wolfram elementary automaton.',
    ),
    envelope: schema.handleId(
      'Constitutional envelope to validate against (default: the scaffold default).',
    ),
    params: schema.closedObject(
      {
        width: schema.integer('Lattice width in cells.', 1, SPEC_LIMITS.maxSide),
        height: schema.integer(
          'Lattice height in cells (`life-lattice`; `elementary-1d` has one row).',
          1,
          SPEC_LIMITS.maxSide,
        ),
        rule: Type.Union(
          [
            schema.patterned(
              'B/S notation (`life-lattice`), e.g. `B3/S23`, `B36/S23`.',
              '^B[0-8]*/S[0-8]*$',
              21,
            ),
            schema.integer('Wolfram rule number (`elementary-1d`).', 0, 255),
          ],
          { description: 'Rule: B/S notation for `life-lattice`, 0..255 for `elementary-1d`.' },
        ),
        ticks: tickField('Ticks (generations) to run.'),
        seed: schema.integer(
          'Seed of the random initial pattern (required for a random start).',
          0,
          SPEC_LIMITS.maxSeed,
        ),
        density: schema.decimal(
          'Share of live cells in the random initial pattern (with `seed` only; default 0.5).',
          0,
          1,
        ),
        pattern: schema.text(
          'Initial pattern instead of a random one: a name (`glider`, `r-pentomino`, `blinker`...) or RLE text, placed at the centre.',
          65_536,
        ),
      },
      ['width', 'rule', 'ticks'],
      'Scaffold parameters.',
    ),
  },
  ['scaffold', 'params'],
  'A seeded, deterministic environment spec.',
);

/** Body of `POST /v1/substrates/validate` and `/compile`. */
export type SubstrateSpecRequest = Static<typeof substrateSpecSchema>;

/** `scaffold` is `name`: the condition of a scaffold's own rules. */
const scaffoldIs = (name: string) => ({
  properties: { scaffold: { const: name } },
  required: ['scaffold'],
});

/**
 * A spec as compile and deploy take it: the cross-field rules `validation.ts` names are
 * stated in the schema too, so the document shows them and a spec breaking one
 * is 422 before anything runs. `validate` keeps the plain schema: there a broken rule is a
 * normal answer (`valid: false`), not an error.
 */
export const compilableSpecSchema: typeof substrateSpecSchema = schema.withRules(
  {
    ...substrateSpecSchema,
    properties: {
      ...substrateSpecSchema.properties,
      params: schema.withRules(substrateSpecSchema.properties.params, [
        schema.oneOfFields(
          'seed',
          'pattern',
          'give `seed` (a random start) or `pattern` (an explicit one), not both',
        ),
        schema.when(
          { required: ['density'] },
          { required: ['seed'] },
          '`density` applies to a random start only',
        ),
      ]),
    },
  },
  [
    schema.when(
      scaffoldIs('life-lattice'),
      { properties: { params: { properties: { rule: { type: 'string' } } } } },
      'life-lattice takes a B/S rule such as `B3/S23`',
    ),
    schema.when(
      scaffoldIs('elementary-1d'),
      { properties: { params: { properties: { rule: { type: 'integer' } } } } },
      'elementary-1d takes a Wolfram rule number 0..255',
    ),
  ],
);
/** `params` of a substrate spec. */
export type SubstrateParams = SubstrateSpecRequest['params'];

/** Body of `POST /v1/substrates/deploy`: a spec, or the id of a compiled manifest. */
const deployFields = schema.closedObject(
  {
    spec: compilableSpecSchema,
    artifact_id: schema.idRef('art', 'Compiled manifest to deploy instead of a spec.'),
    mode: schema.choice(
      ['create', 'bind'],
      '`create` always starts a deployment; `bind` returns a live deployment of the same manifest if any.',
      'create',
    ),
  },
  [],
  'Exactly one of `spec` and `artifact_id`.',
);
// Exactly one of the two: JSON Schema says it with `oneOf`; the type keeps both optional.
export const substrateDeployBody: typeof deployFields = {
  ...deployFields,
  oneOf: [{ required: ['spec'] }, { required: ['artifact_id'] }],
};
export type SubstrateDeployRequest = Static<typeof substrateDeployBody>;

/** A window of cells to return. */
export const windowSchema = schema.closedObject(
  {
    x: schema.integer('Left column.', 0, SPEC_LIMITS.maxSide - 1),
    y: schema.integer('Top row (0 for `elementary-1d`).', 0, SPEC_LIMITS.maxSide - 1),
    width: schema.integer('Columns.', 1, 256),
    height: schema.integer('Rows.', 1, 256),
  },
  ['x', 'y', 'width', 'height'],
  'Window of cells to return (default: the bounding box, cropped to 64 x 64).',
);

export type CellWindow = Static<typeof windowSchema>;

/** Body of `POST /v1/substrates/observe`. */
export const substrateObserveBody = schema.closedObject(
  {
    deployment_id: deploymentId('Deployment to observe.'),
    tick: tickField('Tick to observe (default: the newest computed).'),
    window: windowSchema,
  },
  ['deployment_id'],
);
export type SubstrateObserveRequest = Static<typeof substrateObserveBody>;

/** Body of `POST /v1/substrates/assay`. */
export const substrateAssayBody = schema.closedObject(
  {
    deployment_id: deploymentId('Deployment to assay.'),
    pack_id: schema.handleId('Certification pack to run.'),
  },
  ['deployment_id', 'pack_id'],
);
export type SubstrateAssayRequest = Static<typeof substrateAssayBody>;

/** Body of `POST /v1/substrates/recognize`. */
export const substrateRecognizeBody = schema.closedObject(
  {
    deployment_id: deploymentId('Deployment to scan.'),
    tick: tickField('Tick to scan (default: the newest computed).'),
    recognizer_id: schema.handleId('Recognizer pack (default: the standard pack).'),
  },
  ['deployment_id'],
);
export type SubstrateRecognizeRequest = Static<typeof substrateRecognizeBody>;

/** Body of `POST /v1/substrates/render`. */
export const substrateRenderBody = schema.closedObject(
  {
    deployment_id: deploymentId('Deployment to render.'),
    format: schema.choice(RENDER_FORMATS, 'Output format.'),
    tick: tickField('Tick to render (default: the newest computed).'),
  },
  ['deployment_id', 'format'],
);
export type SubstrateRenderRequest = Static<typeof substrateRenderBody>;

/** Query of `GET /v1/substrates/deployments`. */
export const deploymentListQuery = schema.pagedQuery(idCursor('dep').schema, {
  stage: schema.choice(DEPLOYMENT_STAGES, 'Only deployments in this stage.'),
});
export type DeploymentListQuery = Static<typeof deploymentListQuery>;

/** Query of the registry lists. */
export const registryListQuery = schema.pagedQuery(nameCursor.schema);
