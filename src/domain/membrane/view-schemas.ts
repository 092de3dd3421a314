/** The membrane renderers' request and answer (docs/membrane.md). */
import type { Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { MEMBRANE_FORMATS, type MembraneKind } from './membrane.service';

/** A render request body offering `formats`; `subject` and `payload` are exclusive. */
const renderRequest = (formats: readonly string[], formatDescription: string) =>
  schema.withRules(
    schema.closedObject(
      {
        format: schema.choice(formats as typeof MEMBRANE_FORMATS, formatDescription),
        subject: schema.jsonObject(
          'What to compute and render now: `{handle}` (aboutness), `{assay_id}` or `{deployment_id}` (assay), `{context_id}` (commitment, evidence), `{repair_id}` or `{object_id}` (repair), `{}` (runtime, world).',
          16,
        ),
        payload: schema.jsonValue('A payload to render as given, instead of a subject.'),
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
/** An item the world picture draws: these string fields (others are ignored). */
const drawn = (fields: string[]) => ({
  type: 'object',
  required: fields,
  properties: Object.fromEntries(fields.map((field) => [field, { type: 'string' }])),
});

/**
 * Body of the world renderer: an svg drawn from a payload needs its two arrays, of objects
 * (`object_id`, `name`, `kind`) and relationships (`from`, `to`, `kind`).
 */
const worldRenderRequestBody = schema.withRules(renderRequestBody, [
  schema.when(
    { properties: { format: { const: 'svg' } }, required: ['format', 'payload'] },
    {
      properties: {
        payload: {
          type: 'object',
          required: ['objects', 'relationships'],
          properties: {
            objects: { type: 'array', items: drawn(['object_id', 'name', 'kind']) },
            relationships: { type: 'array', items: drawn(['from', 'to', 'kind']) },
          },
        },
      },
    },
    'a world picture needs `objects` and `relationships` arrays, of objects with string `object_id`, `name`, `kind` and relationships with string `from`, `to`, `kind`',
  ),
]);

/** Body of the other renderers: json, markdown or html (`svg` is 422 there). */
const documentRenderRequestBody = renderRequest(
  MEMBRANE_FORMATS.filter((format) => format !== 'svg'),
  'Output format.',
);

/** What the subject of each renderer that computes from a record must name (one of). */
const SUBJECT_NEEDS = {
  aboutness: ['handle'],
  assay: ['assay_id', 'deployment_id'],
  commitment: ['context_id'],
  evidence: ['context_id'],
  repair: ['repair_id', 'object_id'],
} as const satisfies Partial<Record<MembraneKind, readonly string[]>>;

/**
 * The body of one renderer. World and runtime compute from nothing (`subject: {}`) and draw
 * svg; the others need a subject naming a record (or a payload), stated in the schema.
 */
export function renderRequestBodyOf(kind: MembraneKind): typeof renderRequestBody {
  if (kind === 'runtime') return renderRequestBody;
  if (kind === 'world') return worldRenderRequestBody;
  const fields: readonly string[] = SUBJECT_NEEDS[kind];
  const description = `the ${kind} renderer needs ${fields.map((f) => `subject.${f}`).join(' or ')}`;
  const strings = Object.fromEntries(fields.map((f) => [f, { type: 'string', minLength: 1 }]));
  const named =
    fields.length === 1
      ? { required: fields, properties: strings }
      : { properties: strings, anyOf: fields.map((f) => ({ required: [f] })) };
  return schema.withRules(documentRenderRequestBody, [
    schema.when({ required: ['subject'] }, { properties: { subject: named } }, description),
    schema.when({ not: { required: ['payload'] } }, { required: ['subject'] }, description),
  ]);
}
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
