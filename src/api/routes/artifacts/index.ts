import { Type } from '@sinclair/typebox';
import { getArtifactByPath, rawArtifact } from '../../../domain/artifacts/artifacts.service';
import { count, dateTime, nullable, pathParams, prefixedId, text, view } from '../../../lib/schema';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope } from '../common';

/** Pattern of a multi-segment artifact path: path-safe segments, no empty or leading `/`. */
export const ARTIFACT_PATH_PATTERN = '^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$';
/** A `.` or `..` segment, refused so a path can never climb out of the artifact store. */
export const ARTIFACT_DOT_SEGMENT_PATTERN = '(^|/)\\.\\.?(/|$)';

const artifactPathParams = pathParams({
  artifact_path: Type.String({
    pattern: ARTIFACT_PATH_PATTERN,
    not: { pattern: ARTIFACT_DOT_SEGMENT_PATTERN },
    maxLength: 512,
    description: 'Artifact path, several segments, e.g. `substrates/dep_01J.../manifest.json`.',
  }),
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
    content: Type.Union([Type.String(), Type.Object({}), Type.Array(Type.Unknown()), Type.Null()], {
      description:
        'Inline content: parsed JSON or text up to 256 KiB, null beyond (use `/raw` for the full bytes).',
    }),
    truncated: Type.Boolean({ description: 'True when `content` was left out for size.' }),
  },
  ['path', 'content_type', 'size', 'sha256', 'created_at'],
  'A generated artifact or report.',
);

/** Artifact retrieval by path (`/raw` is listed first on purpose: its path is longer). */
export const artifactRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'artifacts.getRaw',
    method: 'GET',
    path: '/v1/artifacts/{artifact_path}/raw',
    routerPath: '/v1/artifacts/*artifact_path/raw',
    family: 'artifacts',
    summary: 'fetch full artifact bytes or text',
    description:
      'Returns the full bytes of an artifact with its own content type (not wrapped in the envelope), with `ETag` set to its sha256.',
    request: { params: artifactPathParams },
    responses: { 200: { description: 'The artifact bytes, with their content type.' } },
    handler: async (req, deps) => {
      const { bytes, contentType, sha256 } = await rawArtifact(deps, req.params.artifact_path);
      return { raw: { body: bytes, contentType }, headers: { etag: `"${sha256}"` } };
    },
  }),

  defineRoute({
    operationId: 'artifacts.get',
    method: 'GET',
    path: '/v1/artifacts/{artifact_path}',
    routerPath: '/v1/artifacts/*artifact_path',
    family: 'artifacts',
    summary: 'fetch generated artifact or report',
    description:
      'Returns an artifact: its metadata (content type, size, sha256) and, when small enough, its content inline.',
    request: { params: artifactPathParams },
    responses: { 200: { description: 'The artifact.', schema: envelope(artifactView) } },
    handler: async (req, deps) => ({
      payload: await getArtifactByPath(deps, req.params.artifact_path),
    }),
  }),
];
