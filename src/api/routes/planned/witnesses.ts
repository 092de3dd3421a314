import * as schema from '../../../lib/schema';
import type { PlannedRow } from './table';
import { plannedRoutes } from './table';

/** Formats a membrane renderer answers in (DESIGN.md section 8). */
const MEMBRANE_FORMATS = ['json', 'markdown', 'html', 'svg'] as const;

const renderer = (kind: string, family: PlannedRow['family'], summary: string): PlannedRow => ({
  operationId: `membrane.render.${kind}`,
  method: 'POST',
  path: `/v1/membrane/render/${kind}`,
  family,
  summary,
  capability: `The ${kind} membrane renderer`,
  body: {
    name: 'MembraneRenderRequest',
    schema: schema.closedObject(
      {
        format: schema.choice(
          MEMBRANE_FORMATS,
          'Output format (`svg` for world and runtime only).',
        ),
        subject: schema.freeObject(
          'What to compute and render (e.g. `{"context_id": "..."}`).',
          16,
        ),
        payload: schema.anyValue('A payload to render as given, instead of a subject.'),
      },
      ['format'],
    ),
  },
});

/** Witnesses, shared contexts, intentionality and the membrane (DESIGN.md section 8): issue #13. */
export const witnessRoutes = plannedRoutes(13, 'witnesses', [
  renderer('aboutness', 'membrane_witness', 'aboutness witness payload'),
  renderer('assay', 'membrane_basic', 'assay payload'),
  renderer('commitment', 'membrane_witness', 'commitment witness payload'),
  renderer('evidence', 'membrane_witness', 'evidence witness payload'),
  renderer('repair', 'membrane_witness', 'repair witness payload'),
  renderer('runtime', 'membrane_basic', 'runtime state'),
  renderer('world', 'membrane_world_render', 'world state'),
]);
