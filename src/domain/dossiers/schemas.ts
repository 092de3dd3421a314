/** Dossiers (docs/dossiers.md): reproducible audit bundles about one subject. */
import type { Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';

export const DOSSIER_SUBJECTS = ['action', 'deployment', 'context', 'object', 'session'] as const;
export type DossierSubjectKind = (typeof DOSSIER_SUBJECTS)[number];
export const DOSSIER_DEPTHS = ['core', 'full'] as const;
export type DossierDepth = (typeof DOSSIER_DEPTHS)[number];

export const dossierBody = schema.closedObject(
  {
    subject: schema.closedObject(
      {
        kind: schema.choice(DOSSIER_SUBJECTS, 'Subject kind.'),
        id: schema.text('Subject id (a record id, or the context id).', 140),
      },
      ['kind', 'id'],
    ),
  },
  ['subject'],
);
export type DossierBody = Static<typeof dossierBody>;

const artifactRef = schema.view(
  {
    path: schema.text('`dossiers/<dossier_id>/…`.', 300),
    artifact_id: schema.idRef('art', 'Artifact id.'),
    content_type: schema.text('Content type.', 64),
    size: schema.count('Bytes.'),
    sha256: schema.text('sha256 of the bytes (hex).', 64),
  },
  ['path', 'artifact_id', 'content_type', 'size', 'sha256'],
);

export const dossierView = schema.view(
  {
    dossier_id: schema.idRef(
      'dos',
      'Dossier id: `dos_` + the first 26 hex digits of the sha256 of `dossier.json`, so the same records give the same id.',
    ),
    depth: schema.choice(DOSSIER_DEPTHS, '`core` or `full`.'),
    subject: schema.freeObject('`kind` and `id`.'),
    sha256: schema.text('sha256 of `dossier.json` (hex).', 64),
    as_of: schema.nullable(schema.dateTime('The newest time found in its records.')),
    counts: schema.freeObject('Records gathered, per kind.'),
    proofs: schema.freeObject(
      "The subject's proof results: each check's `status` and `violations`.",
    ),
    artifacts: schema.arrayOf(
      artifactRef,
      '`dossier.json`, `dossier.md`, and in `full` each workflow history.',
      {
        maxItems: 64,
      },
    ),
  },
  ['dossier_id', 'depth', 'subject', 'sha256', 'as_of', 'counts', 'proofs', 'artifacts'],
);
