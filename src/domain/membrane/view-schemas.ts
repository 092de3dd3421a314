/** The membrane renderers' request and answer (docs/membrane.md). */
import type { Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { MEMBRANE_FORMATS } from './membrane.service';

/** A render request body offering `formats`; `subject` and `payload` are exclusive. */
const renderRequest = (formats: readonly string[], formatDescription: string) =>
  schema.withRules(
    schema.closedObject(
      {
        format: schema.choice(formats as typeof MEMBRANE_FORMATS, formatDescription),
        subject: schema.freeObject(
          'What to compute and render now: `{handle}` (aboutness), `{assay_id}` or `{deployment_id}` (assay), `{context_id}` (commitment, evidence), `{repair_id}` or `{object_id}` (repair), `{}` (runtime, world).',
          16,
        ),
        payload: schema.anyValue('A payload to render as given, instead of a subject.'),
      },
      ['format'],
    ),
    [
      schema.notBoth(
        'payload',
        'subject',
        'give either `subject` (what to compute) or `payload` (what to render), not both',
      ),
    ],
  );

/** Body of the world and runtime renderers, the two that also draw `svg`. */
export const renderRequestBody = renderRequest(
  MEMBRANE_FORMATS,
  'Output format (`svg` for world and runtime only).',
);
/** Body of the other renderers: json, markdown or html (`svg` is 422 there). */
export const documentRenderRequestBody = renderRequest(
  MEMBRANE_FORMATS.filter((format) => format !== 'svg'),
  'Output format.',
);
export type RenderRequestBody = Static<typeof renderRequestBody>;

export const renderView = schema.view(
  {
    format: schema.choice(MEMBRANE_FORMATS, 'The format rendered.'),
    content_type: schema.text('Media type of `body`.', 64),
    body: schema.text('The document.', 20_000_000, 0),
    sha256: schema.text('sha256 hex of `body` (UTF-8).', 64),
    redactions: schema.arrayOf(
      schema.view(
        {
          path: schema.text('Where, as a JSON path (`$.a[0].b`; `$.<key>` for a key).', 4096),
          reason: schema.choice(
            ['sensitive_field', 'api_key', 'email', 'sensitive_key', 'too_deep'],
            'Why it was kept from crossing.',
          ),
        },
        ['path', 'reason'],
      ),
      'What was kept from crossing, and where.',
      { maxItems: 1_000_000 },
    ),
  },
  ['format', 'content_type', 'body', 'sha256', 'redactions'],
  'A rendered document.',
);
