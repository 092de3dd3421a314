import { getArtifactByPath, rawArtifact } from '../../domain/substrates/artifacts.service';
import { defineRoute, type JsonSchema, type RouteDefinition } from '../route';
import { closedObject, envelope, notImplemented, pathParams, prefixedId } from './common';
import {
  arrayOf,
  choice,
  count,
  dateTime,
  idRef,
  nullable,
  text,
  view,
  type NoParams,
  type NoQuery,
} from './schemas';

/** Issue that owns artifact retrieval. */
const TAGS = ['continuous-ops'];

/** What a checkpoint can snapshot. */
export const CHECKPOINT_SCOPES = [
  'sessions',
  'world',
  'events',
  'actions',
  'substrates',
  'repairs',
] as const;
export type CheckpointScope = (typeof CHECKPOINT_SCOPES)[number];

/** Body of `POST /v1/continuous-ops/checkpoint`. */
export interface CheckpointRequest {
  label?: string;
  scope?: CheckpointScope[];
}

type ArtifactParams = { artifact_path: string };

/** Pattern of a multi-segment artifact path: path-safe segments, no empty or leading `/`. */
export const ARTIFACT_PATH_PATTERN = '^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$';
/** A `.` or `..` segment, refused so a path can never climb out of the artifact store. */
export const ARTIFACT_DOT_SEGMENT_PATTERN = '(^|/)\\.\\.?(/|$)';

const artifactPathParams: JsonSchema = pathParams({
  artifact_path: {
    type: 'string',
    pattern: ARTIFACT_PATH_PATTERN,
    not: { pattern: ARTIFACT_DOT_SEGMENT_PATTERN },
    maxLength: 512,
    description: 'Artifact path, several segments, e.g. `substrates/dep_01J.../manifest.json`.',
  },
});

const artifactView = view(
  {
    artifact_id: prefixedId('art', 'Artifact id (`GET /v1/substrates/artifacts/{id}`).'),
    kind: text('What the artifact is: `manifest`, `assay_report`, `render`, `snapshot`.', 32),
    deployment_id: nullable(prefixedId('dep', 'Deployment that produced it.')),
    raw_url: text('Where the full bytes are.', 600),
    path: text('Artifact path.', 512),
    content_type: text('Content type of the bytes.', 128),
    size: count('Size in bytes.'),
    sha256: text('sha256 of the bytes.', 64),
    created_at: dateTime('When it was written.'),
    content: {
      anyOf: [{ type: 'string' }, { type: 'object' }, { type: 'array' }, { type: 'null' }],
      description:
        'Inline content: parsed JSON or text up to 256 KiB, null beyond (use `/raw` for the full bytes).',
    },
    truncated: { type: 'boolean', description: 'True when `content` was left out for size.' },
  },
  ['path', 'content_type', 'size', 'sha256', 'created_at'],
  'A generated artifact or report.',
);

const checkpointView = view(
  {
    checkpoint_id: prefixedId('chk', 'Checkpoint id.'),
    label: nullable(text('Label.', 128)),
    scope: arrayOf(choice(CHECKPOINT_SCOPES, 'Scope.'), 'Scopes snapshotted.', {
      maxItems: CHECKPOINT_SCOPES.length,
    }),
    status: choice(['running', 'completed', 'failed'], 'Checkpoint status.'),
    workflow_id: text('Temporal workflow id (`checkpoint-chk_...`).', 128),
    artifact_path: nullable(text('Snapshot artifact, once written.', 512)),
    artifact_id: nullable(idRef('art', 'Snapshot artifact id, once written.')),
    digest: nullable(text('sha256 of the snapshot, once written.', 64)),
    history_head: nullable(idRef('evt', 'World history head at the snapshot.')),
    created_at: dateTime('When the checkpoint was requested.'),
    completed_at: nullable(dateTime('When the snapshot was written.')),
  },
  ['checkpoint_id', 'scope', 'status', 'workflow_id', 'created_at'],
  'A runtime checkpoint.',
);

/** Continuous-ops checkpoints and artifact retrieval (`/raw` is listed first on purpose). */
export const continuousOpsRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'continuousOps.checkpoint',
    method: 'POST',
    path: '/v1/continuous-ops/checkpoint',
    family: 'runtime_witness',
    summary: 'create runtime checkpoint',
    description:
      'Starts a checkpoint workflow that writes a snapshot artifact of the chosen scopes (default: all) and records its digest and the world history head. Returns the checkpoint at once; follow `status`.',
    tags: TAGS,
    request: {
      body: {
        name: 'CheckpointRequest',
        required: false,
        schema: closedObject({
          label: text('Label to find the checkpoint by.', 128),
          scope: arrayOf(
            choice(CHECKPOINT_SCOPES, 'A scope.'),
            'Scopes to snapshot (default: all).',
            { minItems: 1, maxItems: CHECKPOINT_SCOPES.length, uniqueItems: true },
          ),
        }),
      },
    },
    responses: {
      201: { description: 'The checkpoint, started.', schema: envelope(checkpointView) },
    },
    idempotent: true,
    handler: notImplemented('Runtime checkpoints'),
  }),

  defineRoute({
    operationId: 'artifacts.getRaw',
    method: 'GET',
    path: '/v1/artifacts/{artifact_path}/raw',
    routerPath: '/v1/artifacts/:artifact_path(.+)/raw',
    family: 'artifacts',
    summary: 'fetch full artifact bytes or text',
    description:
      'Returns the full bytes of an artifact with its own content type (not wrapped in the envelope), with `ETag` set to its sha256.',
    tags: TAGS,
    request: { params: artifactPathParams },
    responses: { 200: { description: 'The artifact bytes, with their content type.' } },
    handler: async (req, deps) => rawArtifact(deps, req.params.artifact_path),
  }),

  defineRoute({
    operationId: 'artifacts.get',
    method: 'GET',
    path: '/v1/artifacts/{artifact_path}',
    routerPath: '/v1/artifacts/:artifact_path(.+)',
    family: 'artifacts',
    summary: 'fetch generated artifact or report',
    description:
      'Returns an artifact: its metadata (content type, size, sha256) and, when small enough, its content inline.',
    tags: TAGS,
    request: { params: artifactPathParams },
    responses: { 200: { description: 'The artifact.', schema: envelope(artifactView) } },
    handler: async (req, deps) => ({
      payload: await getArtifactByPath(deps, req.params.artifact_path),
    }),
  }),
];
