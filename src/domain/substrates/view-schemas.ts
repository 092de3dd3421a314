/** Schemas of what the substrate routes answer (views); they document the OpenAPI responses. */
import { Type, type TProperties } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { DEPLOYMENT_STAGES, RENDER_FORMATS } from './schemas';

const deploymentId = (description: string) => schema.idRef('dep', description);

/** A substrate deployment. */
export const deploymentView = schema.view(
  {
    deployment_id: schema.prefixedId('dep', 'Deployment id.'),
    workflow_url: schema.workflowUrl,
    spec: schema.freeObject('The spec deployed.'),
    manifest_artifact_id: schema.nullable(schema.idRef('art', 'Compiled manifest.')),
    status: schema.choice(['running', 'ready', 'failed', 'cancelled'], 'Overall status.'),
    stage: schema.choice(DEPLOYMENT_STAGES, 'Current stage.'),
    progress: schema.view(
      {
        tick: schema.count('Ticks computed.'),
        ticks_total: schema.count('Ticks to compute.'),
      },
      ['tick', 'ticks_total'],
      'Progress of the run.',
    ),
    error: schema.nullable(
      schema.text('Why the deployment failed (`cancelled` when cancelled).', 1024),
    ),
    manifest_sha256: schema.nullable(
      schema.text('sha256 of the compiled manifest (its identity).', 64),
    ),
    initial_digest: schema.nullable(schema.text('Digest of the state at tick 0.', 64)),
    snapshot_interval: schema.count('Snapshots are stored every this many ticks.'),
    trail_step: schema.count('A digest is recorded every this many ticks.'),
    max_wall_seconds: schema.count('Wall-clock bound of the deploying stage (from the envelope).'),
    final: schema.nullable(
      schema.view(
        {
          tick: schema.count('Final tick.'),
          population: schema.count('Live cells.'),
          bounding_box: schema.nullable(schema.freeObject('Smallest box holding every live cell.')),
          digest: schema.text('State digest.', 64),
        },
        ['tick', 'population', 'bounding_box', 'digest'],
        'What the observing stage found at the final tick.',
      ),
    ),
    assay: schema.nullable(
      schema.view(
        {
          pack_id: schema.text('Pack run by the pipeline.', 128),
          passed: schema.flag('Verdict.'),
          report_artifact_id: schema.idRef('art', 'Stored report.'),
        },
        ['pack_id', 'passed', 'report_artifact_id'],
        'The assaying stage.',
      ),
    ),
    stage_timestamps: schema.freeObject('When each stage was reached (ISO 8601).'),
    created_by: schema.text('Principal that deployed.', 64),
    workflow_id: schema.text('Temporal workflow id (`deployment-dep_...`).', 128),
    created_at: schema.dateTime('When the deployment was created.'),
    updated_at: schema.dateTime('Last change.'),
  },
  ['deployment_id', 'spec', 'status', 'stage', 'progress', 'workflow_id', 'created_at'],
  'A substrate deployment.',
);

/** A build or deployment artifact. */
export const artifactView = schema.view(
  {
    artifact_id: schema.prefixedId('art', 'Artifact id.'),
    kind: schema.choice(
      [
        'manifest',
        'snapshot',
        'assay_report',
        'render',
        'checkpoint',
        'dossier',
        'scenario_report',
      ],
      'What the artifact is.',
    ),
    path: schema.text('Artifact path (`GET /v1/artifacts/{artifact_path}`).', 512),
    content_type: schema.text('Content type.', 128),
    size: schema.count('Size in bytes.'),
    sha256: schema.text('sha256 of the bytes.', 64),
    deployment_id: schema.nullable(deploymentId('Deployment that produced it.')),
    created_at: schema.dateTime('When it was written.'),
  },
  ['artifact_id', 'kind', 'path', 'content_type', 'size', 'sha256', 'created_at'],
  'A build or deployment artifact.',
);

const registryItem = <I extends string, P extends TProperties>(
  idName: I,
  what: string,
  properties: P,
) =>
  schema.view(
    {
      [idName]: schema.text(`${what} id.`, 128),
      name: schema.text('Display name.', 256),
      description: schema.text('What it is.', 4096),
      version: schema.text('Version of the registry entry.', 32),
      ...properties,
    },
    [idName, 'name', 'description', 'version'],
    what,
  );

export const scaffoldView = registryItem('scaffold_id', 'Scaffold package', {
  params: schema.freeObject('JSON Schema of the scaffold parameters.'),
  default_envelope: schema.text('Envelope used when a spec names none.', 128),
});
export const envelopeView = registryItem('envelope_id', 'Constitutional envelope', {
  max_width: schema.count('Widest lattice.'),
  max_height: schema.count('Tallest lattice.'),
  max_ticks: schema.count('Most ticks.'),
  max_wall_seconds: schema.count('Most wall-clock seconds a deployment may run.'),
  allowed_rules: schema.arrayOf(schema.text('A rule.', 32), 'Rules allowed (empty: any).', {
    maxItems: 512,
  }),
});
export const recognizerView = registryItem('recognizer_id', 'Motif recognizer pack', {
  motifs: schema.arrayOf(
    schema.view(
      {
        motif: schema.text('Motif name, e.g. `glider`.', 64),
        class: schema.choice(['still_life', 'oscillator', 'spaceship'], 'Motif class.'),
        period: schema.count('Period (1 for still lifes).'),
      },
      ['motif', 'class', 'period'],
    ),
    'Motifs the pack finds.',
    { maxItems: 256 },
  ),
});
export const certificationPackView = registryItem('pack_id', 'Certification pack', {
  assays: schema.arrayOf(
    schema.view(
      {
        assay: schema.text('Assay name, e.g. `determinism`.', 64),
        description: schema.text('What it checks.', 1024),
      },
      ['assay'],
    ),
    'Assays the pack runs.',
    { maxItems: 64 },
  ),
});

/** The verdict on a spec. */
export const specVerdictView = schema.view(
  {
    valid: schema.flag('True when the spec is within its scaffold and envelope.'),
    violations: schema.arrayOf(
      schema.view(
        {
          path: schema.text('Field at fault, e.g. `params.width`.', 128),
          rule: schema.text('Bound violated, e.g. `max_width`.', 64),
          message: schema.text('What is wrong.', 1024),
        },
        ['path', 'rule', 'message'],
      ),
      'Every violation.',
      { maxItems: 64 },
    ),
    envelope_id: schema.text('Envelope applied.', 128),
    normalized_spec: schema.freeObject('The spec with defaults filled in.'),
  },
  ['valid', 'violations', 'envelope_id'],
);

/** A compiled manifest and its artifact. */
export const compiledManifestView = schema.view(
  {
    artifact: artifactView,
    manifest: schema.freeObject('The canonical manifest.'),
    created: schema.flag('False when the same manifest was compiled before.'),
  },
  ['artifact', 'manifest', 'created'],
);

/** The state of a deployment at a tick. */
export const observationView = schema.view(
  {
    deployment_id: deploymentId('Deployment.'),
    tick: schema.count('Tick observed.'),
    population: schema.count('Live cells.'),
    bounding_box: schema.nullable(
      schema.view(
        {
          x: schema.count('Left.'),
          y: schema.count('Top.'),
          width: schema.count('Columns.'),
          height: schema.count('Rows.'),
        },
        ['x', 'y', 'width', 'height'],
        'Smallest box holding every live cell (null when none).',
      ),
    ),
    digest: schema.text('sha256 of the full state at this tick.', 64),
    window: schema.view(
      {
        x: schema.count('Left column.'),
        y: schema.count('Top row.'),
        rows: schema.arrayOf(schema.text('Row of cells, `#` live, `.` dead.', 256, 0), 'Rows.', {
          maxItems: 256,
        }),
      },
      ['x', 'y', 'rows'],
      'Cells of the window.',
    ),
  },
  ['deployment_id', 'tick', 'population', 'bounding_box', 'digest', 'window'],
);

/** An assay report. */
export const assayReportView = schema.view(
  {
    deployment_id: deploymentId('Deployment.'),
    pack_id: schema.text('Pack run.', 128),
    passed: schema.flag('True when every assay passed.'),
    assays: schema.arrayOf(
      schema.view(
        {
          assay: schema.text('Assay name.', 64),
          passed: schema.flag('Verdict.'),
          detail: schema.freeObject('Evidence (digests, detected period...).'),
        },
        ['assay', 'passed'],
      ),
      'Each assay.',
      { maxItems: 64 },
    ),
    tick: schema.count('Tick assayed (the newest computed).'),
    report_artifact_id: schema.nullable(schema.idRef('art', 'Stored report.')),
    report_path: schema.text('Where the report is (`GET /v1/artifacts/{path}`).', 512),
  },
  ['deployment_id', 'pack_id', 'passed', 'assays'],
);

/** The motifs found at a tick. */
export const recognitionView = schema.view(
  {
    deployment_id: deploymentId('Deployment.'),
    tick: schema.count('Tick scanned.'),
    recognizer_id: schema.text('Pack used.', 128),
    motifs: schema.arrayOf(
      schema.view(
        {
          motif: schema.text('Motif, e.g. `glider`.', 64),
          class: schema.choice(['still_life', 'oscillator', 'spaceship'], 'Class.'),
          x: schema.count('Left column of the match.'),
          y: schema.count('Top row of the match.'),
          phase: schema.count('Phase of an oscillator or spaceship.'),
          heading: schema.choice(
            ['NE', 'NW', 'SE', 'SW', 'N', 'S', 'E', 'W'],
            'Heading of a spaceship.',
          ),
        },
        ['motif', 'class', 'x', 'y'],
      ),
      'Matches.',
      { maxItems: 10_000 },
    ),
    counts: schema.freeObject('Matches per motif.'),
  },
  ['deployment_id', 'tick', 'recognizer_id', 'motifs'],
);

/** A rendering of a deployment. */
export const renderingView = schema.view(
  {
    deployment_id: deploymentId('Deployment.'),
    tick: schema.count('Tick rendered.'),
    format: schema.choice(RENDER_FORMATS, 'Format.'),
    content_type: schema.text('Content type of `content`.', 128),
    content: Type.Union([Type.String(), Type.Object({})], {
      description: 'Markdown or SVG text, or the JSON document.',
    }),
    artifact_id: schema.nullable(schema.idRef('art', 'Stored rendering.')),
    artifact_path: schema.text('Where the rendering is (`GET /v1/artifacts/{path}/raw`).', 512),
  },
  ['deployment_id', 'tick', 'format', 'content_type', 'content'],
);
