/** Schemas of what the substrate routes answer (views); they document the OpenAPI responses. */
import { Type, type TProperties } from '@sinclair/typebox';
import {
  arrayOf,
  choice,
  count,
  dateTime,
  flag,
  freeObject,
  idRef,
  nullable,
  prefixedId,
  text,
  view,
} from '../../lib/schema';
import { DEPLOYMENT_STAGES, RENDER_FORMATS } from './schemas';

const deploymentId = (description: string) => idRef('dep', description);

/** A substrate deployment. */
export const deploymentView = view(
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

/** A build or deployment artifact. */
export const artifactView = view(
  {
    artifact_id: prefixedId('art', 'Artifact id.'),
    kind: choice(
      ['manifest', 'snapshot', 'assay_report', 'render', 'checkpoint'],
      'What the artifact is.',
    ),
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

const registryItem = <I extends string, P extends TProperties>(
  idName: I,
  what: string,
  properties: P,
) =>
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

export const scaffoldView = registryItem('scaffold_id', 'Scaffold package', {
  params: freeObject('JSON Schema of the scaffold parameters.'),
  default_envelope: text('Envelope used when a spec names none.', 128),
});
export const envelopeView = registryItem('envelope_id', 'Constitutional envelope', {
  max_width: count('Widest lattice.'),
  max_height: count('Tallest lattice.'),
  max_ticks: count('Most ticks.'),
  max_wall_seconds: count('Most wall-clock seconds a deployment may run.'),
  allowed_rules: arrayOf(text('A rule.', 32), 'Rules allowed (empty: any).', { maxItems: 512 }),
});
export const recognizerView = registryItem('recognizer_id', 'Motif recognizer pack', {
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
export const certificationPackView = registryItem('pack_id', 'Certification pack', {
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

/** The verdict on a spec. */
export const specVerdictView = view(
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
);

/** A compiled manifest and its artifact. */
export const compiledManifestView = view(
  {
    artifact: artifactView,
    manifest: freeObject('The canonical manifest.'),
    created: flag('False when the same manifest was compiled before.'),
  },
  ['artifact', 'manifest', 'created'],
);

/** The state of a deployment at a tick. */
export const observationView = view(
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
);

/** An assay report. */
export const assayReportView = view(
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
);

/** The motifs found at a tick. */
export const recognitionView = view(
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
          heading: choice(['NE', 'NW', 'SE', 'SW', 'N', 'S', 'E', 'W'], 'Heading of a spaceship.'),
        },
        ['motif', 'class', 'x', 'y'],
      ),
      'Matches.',
      { maxItems: 10_000 },
    ),
    counts: freeObject('Matches per motif.'),
  },
  ['deployment_id', 'tick', 'recognizer_id', 'motifs'],
);

/** A rendering of a deployment. */
export const renderingView = view(
  {
    deployment_id: deploymentId('Deployment.'),
    tick: count('Tick rendered.'),
    format: choice(RENDER_FORMATS, 'Format.'),
    content_type: text('Content type of `content`.', 128),
    content: Type.Union([Type.String(), Type.Object({})], {
      description: 'Markdown or SVG text, or the JSON document.',
    }),
    artifact_id: nullable(idRef('art', 'Stored rendering.')),
    artifact_path: text('Where the rendering is (`GET /v1/artifacts/{path}/raw`).', 512),
  },
  ['deployment_id', 'tick', 'format', 'content_type', 'content'],
);
