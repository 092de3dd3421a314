import type { RouteFamily } from '../../../auth/families';
import { renderMembrane, type MembraneKind } from '../../../domain/membrane/membrane.service';
import * as membraneViews from '../../../domain/membrane/view-schemas';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope } from '../common';

/** One renderer: the witness it computes or the payload it is given, as a document. */
const renderer = (kind: MembraneKind, family: RouteFamily, summary: string): RouteDefinition =>
  defineRoute({
    operationId: `membrane.render.${kind}`,
    method: 'POST',
    path: `/v1/membrane/render/${kind}`,
    family,
    summary,
    description: `Renders the ${kind} witness (with \`subject\`, computed now; with neither \`subject\` nor \`payload\`, the current one, as \`subject: {}\`) or a \`payload\` as given (not both: 422), as json, markdown or html${kind === 'world' || kind === 'runtime' ? ' or svg' : ''}. API keys, \`*secret*\`/\`*token*\`/\`*password*\` fields and e-mail addresses never cross: each is replaced and listed in \`redactions\`. HTML is self-contained, with no script. See docs/membrane.md.`,
    request: {
      body: {
        // Runtime draws svg and computes from nothing; world too, and its svg from a payload
        // needs the picture's arrays; each other renderer's body says what its subject must
        // name (and offers no svg).
        name:
          kind === 'runtime'
            ? 'MembraneRenderRequest'
            : `Membrane${kind[0].toUpperCase()}${kind.slice(1)}RenderRequest`,
        schema: membraneViews.renderRequestBodyOf(kind),
        // A rendering is never stored: any key a payload holds is redacted or shown, not kept.
        stored: false,
      },
    },
    responses: {
      404: { description: 'No such subject.' },
      200: { description: 'The document.', schema: envelope(membraneViews.renderView) },
    },
    handler: async (req, deps) => ({ payload: await renderMembrane(deps, kind, req.body) }),
  });

/** The membrane: where records become documents for people outside (docs/membrane.md). */
export const membraneRoutes: RouteDefinition[] = [
  renderer('aboutness', 'membrane_witness', 'aboutness witness payload'),
  renderer('assay', 'membrane_basic', 'assay payload'),
  renderer('commitment', 'membrane_witness', 'commitment witness payload'),
  renderer('evidence', 'membrane_witness', 'evidence witness payload'),
  renderer('repair', 'membrane_witness', 'repair witness payload'),
  renderer('runtime', 'membrane_basic', 'runtime state'),
  renderer('world', 'membrane_world_render', 'world state'),
];
