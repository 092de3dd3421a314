import { buildDossier } from '../../../domain/dossiers/dossiers.service';
import * as dossiers from '../../../domain/dossiers/schemas';
import type { DossierDepth } from '../../../domain/dossiers/schemas';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope } from '../common';

const route = (depth: DossierDepth, summary: string, description: string): RouteDefinition =>
  defineRoute({
    operationId: `dossiers.${depth}`,
    method: 'POST',
    path: `/v1/dossiers/${depth}`,
    family: 'dossiers',
    summary,
    description: `${description} Stored as artifacts under \`dossiers/<dossier_id>/\` with their sha256; the same records give the same bytes and the same id (docs/dossiers.md). An unknown subject is 404.`,
    request: { body: { name: 'DossierRequest', schema: dossiers.dossierBody } },
    responses: {
      404: { description: 'No such subject.' },
      200: { description: 'The dossier.', schema: envelope(dossiers.dossierView) },
    },
    handler: async (req, deps) => ({ payload: await buildDossier(deps, depth, req.body) }),
  });

/** Dossiers (docs/dossiers.md): reproducible audit bundles about one subject. */
export const dossierRoutes: RouteDefinition[] = [
  route(
    'core',
    'build core dossier',
    "The subject's record, its ledger with its proof results, and its related records, as `dossier.json` (canonical JSON: sorted keys) and `dossier.md`.",
  ),
  route(
    'full',
    'build full dossier',
    'The core dossier plus the witnesses about the subject (computed as of its newest record) and the Temporal event history of each related workflow (`history/<workflow_id>.json`, summarised in the dossier).',
  ),
];
