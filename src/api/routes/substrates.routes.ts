import { getArtifact } from '../../domain/substrates/artifacts.service';
import { compileSpec } from '../../domain/substrates/compile.service';
import {
  deploy,
  deploymentView as viewOfDeployment,
  getDeployment,
  listDeployments,
} from '../../domain/substrates/deployments.service';
import {
  assay,
  observe,
  recognizeMotifs,
  renderDeployment,
} from '../../domain/substrates/inspection.service';
import {
  certificationPackRegistry,
  envelopeRegistry,
  recognizerPackView,
  recognizerRegistry,
  scaffoldRegistry,
} from '../../domain/substrates/registry/registry';
import { validateSpec } from '../../domain/substrates/validation';
import { defineRoute, type JsonSchema, type RouteDefinition } from '../route';
import {
  closedObject,
  envelope,
  handleId,
  page,
  pagedQuery,
  pathParams,
  prefixedId,
} from './common';
import {
  arrayOf,
  choice,
  count,
  dateTime,
  decimal,
  flag,
  freeObject,
  idRef,
  integer,
  nullable,
  patterned,
  text,
  view,
  type NoParams,
  type NoQuery,
  type PagedQuery,
} from './schemas';

const TAGS = ['substrates'];

/** Scaffolds (DESIGN.md section 7). */
export const SCAFFOLDS = ['life-lattice', 'elementary-1d'] as const;
export type ScaffoldName = (typeof SCAFFOLDS)[number];

/** Deployment stages (DESIGN.md section 5). */
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

/** `params` of a substrate spec. */
export interface SubstrateParams {
  width: number;
  height?: number;
  rule: string | number;
  ticks: number;
  seed?: number;
  density?: number;
  pattern?: string;
}

/** Body of `POST /v1/substrates/validate` and `/compile`. */
export interface SubstrateSpecRequest {
  scaffold: ScaffoldName;
  envelope?: string;
  params: SubstrateParams;
}

/** Body of `POST /v1/substrates/deploy`: a spec, or the id of a compiled manifest. */
export interface SubstrateDeployRequest {
  spec?: SubstrateSpecRequest;
  artifact_id?: string;
  mode?: 'create' | 'bind';
}

/** A rectangle of cells. */
export interface CellWindow {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Body of `POST /v1/substrates/observe`. */
export interface SubstrateObserveRequest {
  deployment_id: string;
  tick?: number;
  window?: CellWindow;
}

/** Body of `POST /v1/substrates/assay`. */
export interface SubstrateAssayRequest {
  deployment_id: string;
  pack_id: string;
}

/** Body of `POST /v1/substrates/recognize`. */
export interface SubstrateRecognizeRequest {
  deployment_id: string;
  tick?: number;
  recognizer_id?: string;
}

/** Body of `POST /v1/substrates/render`. */
export interface SubstrateRenderRequest {
  deployment_id: string;
  format: RenderFormat;
  tick?: number;
}

/** Query of `GET /v1/substrates/deployments`. */
export type DeploymentListQuery = PagedQuery & { stage?: DeploymentStage };

const deploymentId = (description: string) => idRef('dep', description);
const tickField = (description: string) => integer(description, 0, SPEC_LIMITS.maxTicks);

/** Schema of a substrate spec (also the `spec` of a deploy body). */
export const substrateSpecSchema: JsonSchema = closedObject(
  {
    scaffold: choice(
      SCAFFOLDS,
      '`life-lattice`: 2-D outer-totalistic automaton on a torus; `elementary-1d`: a Wolfram elementary automaton.',
    ),
    envelope: handleId(
      'Constitutional envelope to validate against (default: the scaffold default).',
    ),
    params: closedObject(
      {
        width: integer('Lattice width in cells.', 1, SPEC_LIMITS.maxSide),
        height: integer(
          'Lattice height in cells (`life-lattice`; `elementary-1d` has one row).',
          1,
          SPEC_LIMITS.maxSide,
        ),
        rule: {
          anyOf: [
            patterned(
              'B/S notation (`life-lattice`), e.g. `B3/S23`, `B36/S23`.',
              '^B[0-8]*/S[0-8]*$',
              21,
            ),
            integer('Wolfram rule number (`elementary-1d`).', 0, 255),
          ],
          description: 'Rule: B/S notation for `life-lattice`, 0..255 for `elementary-1d`.',
        },
        ticks: tickField('Ticks (generations) to run.'),
        seed: integer(
          'Seed of the random initial pattern (required for a random start).',
          0,
          SPEC_LIMITS.maxSeed,
        ),
        density: decimal(
          'Share of live cells in the random initial pattern (with `seed` only; default 0.5).',
          0,
          1,
        ),
        pattern: text(
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

const windowSchema = closedObject(
  {
    x: integer('Left column.', 0, SPEC_LIMITS.maxSide - 1),
    y: integer('Top row (0 for `elementary-1d`).', 0, SPEC_LIMITS.maxSide - 1),
    width: integer('Columns.', 1, 256),
    height: integer('Rows.', 1, 256),
  },
  ['x', 'y', 'width', 'height'],
  'Window of cells to return (default: the bounding box, cropped to 64 x 64).',
);

const deploymentView = view(
  {
    deployment_id: prefixedId('dep', 'Deployment id.'),
    spec: freeObject('The spec deployed.'),
    manifest_artifact_id: nullable(idRef('art', 'Compiled manifest.')),
    status: choice(['running', 'ready', 'failed', 'cancelled'], 'Overall status.'),
    stage: choice(DEPLOYMENT_STAGES, 'Current stage.'),
    progress: view(
      {
        tick: count('Ticks computed.'),
        ticks_total: count('Ticks to compute.'),
      },
      ['tick', 'ticks_total'],
      'Progress of the run.',
    ),
    error: nullable(text('Why the deployment failed (`cancelled` when cancelled).', 1024)),
    manifest_sha256: nullable(text('sha256 of the compiled manifest (its identity).', 64)),
    initial_digest: nullable(text('Digest of the state at tick 0.', 64)),
    snapshot_interval: count('Snapshots are stored every this many ticks.'),
    trail_step: count('A digest is recorded every this many ticks.'),
    max_wall_seconds: count('Wall-clock bound of the deploying stage (from the envelope).'),
    final: nullable(
      view(
        {
          tick: count('Final tick.'),
          population: count('Live cells.'),
          bounding_box: nullable(freeObject('Smallest box holding every live cell.')),
          digest: text('State digest.', 64),
        },
        ['tick', 'population', 'bounding_box', 'digest'],
        'What the observing stage found at the final tick.',
      ),
    ),
    assay: nullable(
      view(
        {
          pack_id: text('Pack run by the pipeline.', 128),
          passed: flag('Verdict.'),
          report_artifact_id: idRef('art', 'Stored report.'),
        },
        ['pack_id', 'passed', 'report_artifact_id'],
        'The assaying stage.',
      ),
    ),
    stage_timestamps: freeObject('When each stage was reached (ISO 8601).'),
    created_by: text('Principal that deployed.', 64),
    workflow_id: text('Temporal workflow id (`deployment-dep_...`).', 128),
    created_at: dateTime('When the deployment was created.'),
    updated_at: dateTime('Last change.'),
  },
  ['deployment_id', 'spec', 'status', 'stage', 'progress', 'workflow_id', 'created_at'],
  'A substrate deployment.',
);

const artifactView = view(
  {
    artifact_id: prefixedId('art', 'Artifact id.'),
    kind: choice(['manifest', 'snapshot', 'assay_report', 'render'], 'What the artifact is.'),
    path: text('Artifact path (`GET /v1/artifacts/{artifact_path}`).', 512),
    content_type: text('Content type.', 128),
    size: count('Size in bytes.'),
    sha256: text('sha256 of the bytes.', 64),
    deployment_id: nullable(deploymentId('Deployment that produced it.')),
    created_at: dateTime('When it was written.'),
  },
  ['artifact_id', 'kind', 'path', 'content_type', 'size', 'sha256', 'created_at'],
  'A build or deployment artifact.',
);

const registryItem = (
  idName: string,
  what: string,
  properties: Record<string, JsonSchema>,
): JsonSchema =>
  view(
    {
      [idName]: text(`${what} id.`, 128),
      name: text('Display name.', 256),
      description: text('What it is.', 4096),
      version: text('Version of the registry entry.', 32),
      ...properties,
    },
    [idName, 'name', 'description', 'version'],
    what,
  );

const scaffoldView = registryItem('scaffold_id', 'Scaffold package', {
  params: freeObject('JSON Schema of the scaffold parameters.'),
  default_envelope: text('Envelope used when a spec names none.', 128),
});
const envelopeView = registryItem('envelope_id', 'Constitutional envelope', {
  max_width: count('Widest lattice.'),
  max_height: count('Tallest lattice.'),
  max_ticks: count('Most ticks.'),
  max_wall_seconds: count('Most wall-clock seconds a deployment may run.'),
  allowed_rules: arrayOf(text('A rule.', 32), 'Rules allowed (empty: any).', { maxItems: 512 }),
});
const recognizerView = registryItem('recognizer_id', 'Motif recognizer pack', {
  motifs: arrayOf(
    view(
      {
        motif: text('Motif name, e.g. `glider`.', 64),
        class: choice(['still_life', 'oscillator', 'spaceship'], 'Motif class.'),
        period: count('Period (1 for still lifes).'),
      },
      ['motif', 'class', 'period'],
    ),
    'Motifs the pack finds.',
    { maxItems: 256 },
  ),
});
const certificationPackView = registryItem('pack_id', 'Certification pack', {
  assays: arrayOf(
    view(
      {
        assay: text('Assay name, e.g. `determinism`.', 64),
        description: text('What it checks.', 1024),
      },
      ['assay'],
    ),
    'Assays the pack runs.',
    { maxItems: 64 },
  ),
});

const specBody = { name: 'SubstrateSpecRequest', schema: substrateSpecSchema };

/** Substrates: validate, compile, deploy, observe, assay, recognize, render, registries. */
export const substratesRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'substrates.validate',
    method: 'POST',
    path: '/v1/substrates/validate',
    family: 'substrate_seeding',
    summary: 'validate seeded environment spec',
    description:
      'Checks a spec against its scaffold and envelope and names every violation. An invalid spec is a normal answer (`valid: false`), not an error.',
    tags: TAGS,
    request: { body: specBody },
    responses: {
      200: {
        description: 'The verdict.',
        schema: envelope(
          view(
            {
              valid: flag('True when the spec is within its scaffold and envelope.'),
              violations: arrayOf(
                view(
                  {
                    path: text('Field at fault, e.g. `params.width`.', 128),
                    rule: text('Bound violated, e.g. `max_width`.', 64),
                    message: text('What is wrong.', 1024),
                  },
                  ['path', 'rule', 'message'],
                ),
                'Every violation.',
                { maxItems: 64 },
              ),
              envelope_id: text('Envelope applied.', 128),
              normalized_spec: freeObject('The spec with defaults filled in.'),
            },
            ['valid', 'violations', 'envelope_id'],
          ),
        ),
      },
    },
    handler: async (req) => ({ payload: validateSpec(req.body) }),
  }),

  defineRoute({
    operationId: 'substrates.compile',
    method: 'POST',
    path: '/v1/substrates/compile',
    family: 'substrate_build',
    summary: 'compile spec',
    description:
      'Validates and compiles a spec into a canonical manifest whose sha256 is its identity: the same spec gives the same artifact, byte for byte. An invalid spec is 422 naming the violations.',
    tags: TAGS,
    request: { body: specBody },
    responses: {
      200: {
        description: 'The manifest artifact.',
        schema: envelope(
          view(
            {
              artifact: artifactView,
              manifest: freeObject('The canonical manifest.'),
              created: flag('False when the same manifest was compiled before.'),
            },
            ['artifact', 'manifest', 'created'],
          ),
        ),
      },
    },
    handler: async (req, deps) => ({ payload: await compileSpec(deps, req.body) }),
  }),

  defineRoute({
    operationId: 'substrates.deploy',
    method: 'POST',
    path: '/v1/substrates/deploy',
    family: 'substrate_build',
    summary: 'deploy or bind environment',
    description:
      'Starts a deployment workflow (validate, compile, deploy, observe, assay) from a spec or a compiled manifest and returns the deployment at once; follow `stage` and `progress`. `mode: bind` reuses a live deployment of the same manifest when there is one.',
    tags: TAGS,
    request: {
      body: {
        name: 'SubstrateDeployRequest',
        schema: {
          ...closedObject({
            spec: substrateSpecSchema,
            artifact_id: idRef('art', 'Compiled manifest to deploy instead of a spec.'),
            mode: choice(
              ['create', 'bind'],
              '`create` always starts a deployment; `bind` returns a live deployment of the same manifest if any.',
              'create',
            ),
          }),
          oneOf: [{ required: ['spec'] }, { required: ['artifact_id'] }],
          description: 'Exactly one of `spec` and `artifact_id`.',
        },
      },
    },
    responses: {
      201: { description: 'The deployment, started.', schema: envelope(deploymentView) },
      200: { description: '`bind`: the existing deployment.', schema: envelope(deploymentView) },
    },
    idempotent: true,
    handler: async (req, deps) => {
      const { created, deployment } = await deploy(deps, req.auth!, req.body);
      return { status: created ? 201 : 200, payload: deployment };
    },
  }),

  defineRoute({
    operationId: 'substrates.observe',
    method: 'POST',
    path: '/v1/substrates/observe',
    family: 'substrate_observation',
    summary: 'observe deployed environment state',
    description:
      'Returns the state of a deployment at a tick (default: the newest computed): population, bounding box, digest and a window of cells. A tick not computed yet is 409.',
    tags: TAGS,
    request: {
      body: {
        name: 'SubstrateObserveRequest',
        schema: closedObject(
          {
            deployment_id: deploymentId('Deployment to observe.'),
            tick: tickField('Tick to observe (default: the newest computed).'),
            window: windowSchema,
          },
          ['deployment_id'],
        ),
      },
    },
    responses: {
      200: {
        description: 'The observation.',
        schema: envelope(
          view(
            {
              deployment_id: deploymentId('Deployment.'),
              tick: count('Tick observed.'),
              population: count('Live cells.'),
              bounding_box: nullable(
                view(
                  {
                    x: count('Left.'),
                    y: count('Top.'),
                    width: count('Columns.'),
                    height: count('Rows.'),
                  },
                  ['x', 'y', 'width', 'height'],
                  'Smallest box holding every live cell (null when none).',
                ),
              ),
              digest: text('sha256 of the full state at this tick.', 64),
              window: view(
                {
                  x: count('Left column.'),
                  y: count('Top row.'),
                  rows: arrayOf(text('Row of cells, `#` live, `.` dead.', 256, 0), 'Rows.', {
                    maxItems: 256,
                  }),
                },
                ['x', 'y', 'rows'],
                'Cells of the window.',
              ),
            },
            ['deployment_id', 'tick', 'population', 'bounding_box', 'digest', 'window'],
          ),
        ),
      },
    },
    handler: async (req, deps) => ({ payload: await observe(deps, req.body) }),
  }),

  defineRoute({
    operationId: 'substrates.assay',
    method: 'POST',
    path: '/v1/substrates/assay',
    family: 'substrate_assay',
    summary: 'run assay pack against deployed environment',
    description:
      'Runs a certification pack (determinism by replay digest, envelope conformance, liveness, period detection...) against a deployment and returns each assay verdict with its evidence.',
    tags: TAGS,
    request: {
      body: {
        name: 'SubstrateAssayRequest',
        schema: closedObject(
          {
            deployment_id: deploymentId('Deployment to assay.'),
            pack_id: handleId('Certification pack to run.'),
          },
          ['deployment_id', 'pack_id'],
        ),
      },
    },
    responses: {
      200: {
        description: 'The assay report.',
        schema: envelope(
          view(
            {
              deployment_id: deploymentId('Deployment.'),
              pack_id: text('Pack run.', 128),
              passed: flag('True when every assay passed.'),
              assays: arrayOf(
                view(
                  {
                    assay: text('Assay name.', 64),
                    passed: flag('Verdict.'),
                    detail: freeObject('Evidence (digests, detected period...).'),
                  },
                  ['assay', 'passed'],
                ),
                'Each assay.',
                { maxItems: 64 },
              ),
              tick: count('Tick assayed (the newest computed).'),
              report_artifact_id: nullable(idRef('art', 'Stored report.')),
              report_path: text('Where the report is (`GET /v1/artifacts/{path}`).', 512),
            },
            ['deployment_id', 'pack_id', 'passed', 'assays'],
          ),
        ),
      },
    },
    handler: async (req, deps) => ({ payload: await assay(deps, req.body) }),
  }),

  defineRoute({
    operationId: 'substrates.recognize',
    method: 'POST',
    path: '/v1/substrates/recognize',
    family: 'substrate_recognition',
    summary: 'motif recognition outputs',
    description:
      'Scans a deployment at a tick with a recognizer pack and lists the motifs found: still lifes, oscillators and spaceships, with position, phase and heading.',
    tags: TAGS,
    request: {
      body: {
        name: 'SubstrateRecognizeRequest',
        schema: closedObject(
          {
            deployment_id: deploymentId('Deployment to scan.'),
            tick: tickField('Tick to scan (default: the newest computed).'),
            recognizer_id: handleId('Recognizer pack (default: the standard pack).'),
          },
          ['deployment_id'],
        ),
      },
    },
    responses: {
      200: {
        description: 'The motifs found.',
        schema: envelope(
          view(
            {
              deployment_id: deploymentId('Deployment.'),
              tick: count('Tick scanned.'),
              recognizer_id: text('Pack used.', 128),
              motifs: arrayOf(
                view(
                  {
                    motif: text('Motif, e.g. `glider`.', 64),
                    class: choice(['still_life', 'oscillator', 'spaceship'], 'Class.'),
                    x: count('Left column of the match.'),
                    y: count('Top row of the match.'),
                    phase: count('Phase of an oscillator or spaceship.'),
                    heading: choice(
                      ['NE', 'NW', 'SE', 'SW', 'N', 'S', 'E', 'W'],
                      'Heading of a spaceship.',
                    ),
                  },
                  ['motif', 'class', 'x', 'y'],
                ),
                'Matches.',
                { maxItems: 10_000 },
              ),
              counts: freeObject('Matches per motif.'),
            },
            ['deployment_id', 'tick', 'recognizer_id', 'motifs'],
          ),
        ),
      },
    },
    handler: async (req, deps) => ({ payload: await recognizeMotifs(deps, req.body) }),
  }),

  defineRoute({
    operationId: 'substrates.render',
    method: 'POST',
    path: '/v1/substrates/render',
    family: 'substrate_observation',
    summary: 'render manifests and summaries',
    description:
      'Renders a deployment at a tick as JSON (manifest and summary), Markdown (a readable report) or SVG (a picture of the lattice).',
    tags: TAGS,
    request: {
      body: {
        name: 'SubstrateRenderRequest',
        schema: closedObject(
          {
            deployment_id: deploymentId('Deployment to render.'),
            format: choice(RENDER_FORMATS, 'Output format.'),
            tick: tickField('Tick to render (default: the newest computed).'),
          },
          ['deployment_id', 'format'],
        ),
      },
    },
    responses: {
      200: {
        description: 'The rendering.',
        schema: envelope(
          view(
            {
              deployment_id: deploymentId('Deployment.'),
              tick: count('Tick rendered.'),
              format: choice(RENDER_FORMATS, 'Format.'),
              content_type: text('Content type of `content`.', 128),
              content: {
                anyOf: [{ type: 'string' }, { type: 'object' }],
                description: 'Markdown or SVG text, or the JSON document.',
              },
              artifact_id: nullable(idRef('art', 'Stored rendering.')),
              artifact_path: text('Where the rendering is (`GET /v1/artifacts/{path}/raw`).', 512),
            },
            ['deployment_id', 'tick', 'format', 'content_type', 'content'],
          ),
        ),
      },
    },
    handler: async (req, deps) => ({ payload: await renderDeployment(deps, req.body) }),
  }),

  defineRoute({
    operationId: 'substrates.deployments.list',
    method: 'GET',
    path: '/v1/substrates/deployments',
    family: 'substrate_build',
    summary: 'list deployment records',
    description: 'Lists deployments, newest first, optionally in one stage.',
    tags: TAGS,
    request: {
      query: pagedQuery({ stage: choice(DEPLOYMENT_STAGES, 'Only deployments in this stage.') }),
    },
    responses: { 200: { description: 'A page of deployments.', schema: page(deploymentView) } },
    handler: async (req, deps) => ({ payload: await listDeployments(deps, req.query) }),
  }),

  defineRoute<unknown, NoQuery, { deployment_id: string }>({
    operationId: 'substrates.deployments.get',
    method: 'GET',
    path: '/v1/substrates/deployments/{deployment_id}',
    family: 'substrate_build',
    summary: 'inspect deployment record',
    description: 'Returns one deployment: spec, manifest, stage and progress.',
    tags: TAGS,
    request: { params: pathParams({ deployment_id: prefixedId('dep', 'Deployment id.') }) },
    responses: { 200: { description: 'The deployment.', schema: envelope(deploymentView) } },
    handler: async (req, deps) => ({
      payload: viewOfDeployment(await getDeployment(deps, req.params.deployment_id)),
    }),
  }),

  defineRoute<unknown, NoQuery, { artifact_id: string }>({
    operationId: 'substrates.artifacts.get',
    method: 'GET',
    path: '/v1/substrates/artifacts/{artifact_id}',
    family: 'substrate_build',
    summary: 'inspect build or deployment artifact',
    description:
      'Returns the metadata of one artifact (kind, path, content type, size, sha256); the content is at `GET /v1/artifacts/{path}`.',
    tags: TAGS,
    request: { params: pathParams({ artifact_id: prefixedId('art', 'Artifact id.') }) },
    responses: { 200: { description: 'The artifact.', schema: envelope(artifactView) } },
    handler: async (req, deps) => ({ payload: await getArtifact(deps, req.params.artifact_id) }),
  }),

  defineRoute({
    operationId: 'substrates.scaffolds.list',
    method: 'GET',
    path: '/v1/substrates/scaffolds',
    family: 'substrate_seeding',
    summary: 'list scaffold packages',
    description: 'Lists the scaffold packages (environment templates) and their parameters.',
    tags: TAGS,
    request: { query: pagedQuery() },
    responses: { 200: { description: 'A page of scaffolds.', schema: page(scaffoldView) } },
    handler: async (req) => ({ payload: scaffoldRegistry.list(req.query) }),
  }),

  defineRoute<unknown, NoQuery, { scaffold_id: string }>({
    operationId: 'substrates.scaffolds.get',
    method: 'GET',
    path: '/v1/substrates/scaffolds/{scaffold_id}',
    family: 'substrate_seeding',
    summary: 'inspect scaffold package',
    description: 'Returns one scaffold package with the JSON Schema of its parameters.',
    tags: TAGS,
    request: { params: pathParams({ scaffold_id: handleId('Scaffold id, e.g. `life-lattice`.') }) },
    responses: { 200: { description: 'The scaffold.', schema: envelope(scaffoldView) } },
    handler: async (req) => ({ payload: scaffoldRegistry.get(req.params.scaffold_id) }),
  }),

  defineRoute({
    operationId: 'substrates.envelopes.list',
    method: 'GET',
    path: '/v1/substrates/envelopes',
    family: 'substrate_seeding',
    summary: 'list constitutional envelopes',
    description: 'Lists the constitutional envelopes: bounds on size, ticks, wall time and rules.',
    tags: TAGS,
    request: { query: pagedQuery() },
    responses: { 200: { description: 'A page of envelopes.', schema: page(envelopeView) } },
    handler: async (req) => ({ payload: envelopeRegistry.list(req.query) }),
  }),

  defineRoute<unknown, NoQuery, { envelope_id: string }>({
    operationId: 'substrates.envelopes.get',
    method: 'GET',
    path: '/v1/substrates/envelopes/{envelope_id}',
    family: 'substrate_seeding',
    summary: 'inspect envelope',
    description: 'Returns one constitutional envelope with its bounds.',
    tags: TAGS,
    request: { params: pathParams({ envelope_id: handleId('Envelope id.') }) },
    responses: { 200: { description: 'The envelope.', schema: envelope(envelopeView) } },
    handler: async (req) => ({ payload: envelopeRegistry.get(req.params.envelope_id) }),
  }),

  defineRoute({
    operationId: 'substrates.recognizers.list',
    method: 'GET',
    path: '/v1/substrates/recognizers',
    family: 'substrate_recognition',
    summary: 'list motif recognizer packs',
    description: 'Lists the motif recognizer packs and the motifs each finds.',
    tags: TAGS,
    request: { query: pagedQuery() },
    responses: {
      200: { description: 'A page of recognizer packs.', schema: page(recognizerView) },
    },
    handler: async (req) => {
      const page = recognizerRegistry.list(req.query);
      return { payload: { ...page, items: page.items.map(recognizerPackView) } };
    },
  }),

  defineRoute<unknown, NoQuery, { recognizer_id: string }>({
    operationId: 'substrates.recognizers.get',
    method: 'GET',
    path: '/v1/substrates/recognizers/{recognizer_id}',
    family: 'substrate_recognition',
    summary: 'inspect recognizer pack',
    description: 'Returns one recognizer pack with its motifs, classes and periods.',
    tags: TAGS,
    request: { params: pathParams({ recognizer_id: handleId('Recognizer pack id.') }) },
    responses: { 200: { description: 'The recognizer pack.', schema: envelope(recognizerView) } },
    handler: async (req) => ({
      payload: recognizerPackView(recognizerRegistry.get(req.params.recognizer_id)),
    }),
  }),

  defineRoute({
    operationId: 'substrates.certificationPacks.list',
    method: 'GET',
    path: '/v1/substrates/certification-packs',
    family: 'substrate_assay',
    summary: 'list certification starter packs',
    description: 'Lists the certification packs and the assays each runs.',
    tags: TAGS,
    request: { query: pagedQuery() },
    responses: {
      200: { description: 'A page of certification packs.', schema: page(certificationPackView) },
    },
    handler: async (req) => ({ payload: certificationPackRegistry.list(req.query) }),
  }),

  defineRoute<unknown, NoQuery, { pack_id: string }>({
    operationId: 'substrates.certificationPacks.get',
    method: 'GET',
    path: '/v1/substrates/certification-packs/{pack_id}',
    family: 'substrate_assay',
    summary: 'inspect certification pack',
    description: 'Returns one certification pack with its assays.',
    tags: TAGS,
    request: { params: pathParams({ pack_id: handleId('Certification pack id.') }) },
    responses: {
      200: { description: 'The certification pack.', schema: envelope(certificationPackView) },
    },
    handler: async (req) => ({ payload: certificationPackRegistry.get(req.params.pack_id) }),
  }),
];
