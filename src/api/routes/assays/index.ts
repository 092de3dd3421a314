import { runSocialAssay } from '../../../domain/assays/assays.service';
import * as assays from '../../../domain/assays/schemas';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope, fromBody } from '../common';

/** Social assays (docs/assays.md). */
export const assayRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'assays.social.run',
    method: 'POST',
    path: '/v1/assays/social/run',
    family: 'assays',
    summary: 'run social/cultural assay',
    description:
      "An iterated prisoner's dilemma round robin: every distinct pair of players plays `turns` turns once per repetition, no self-play. The deterministic strategies play as the Python `axelrod` library defines them; `random` and `noise` draw from MT19937 seeded per match (docs/assays.md). Bounds: 16 players, 10,000 turns, 10 repetitions. The result is stored as the artifact `assays/<assay_id>/result.json`.",
    request: { body: { name: 'RunSocialAssayRequest', schema: assays.runAssayBody } },
    responses: {
      200: { description: 'The round robin, played.', schema: envelope(assays.assayView) },
    },
    handler: fromBody(runSocialAssay),
  }),
];
