/**
 * Small JSON Schema builders shared by the route tables. Every builder takes the field's
 * `description` (it flows into the OpenAPI document) and sensible bounds, so a table reads as
 * a list of fields rather than a wall of schema literals.
 */
import type { JsonSchema } from '../route';
import { contextId, prefixedId } from './common';

/** A bounded string. */
export const text = (description: string, maxLength = 256, minLength = 1): JsonSchema => ({
  type: 'string',
  minLength,
  maxLength,
  description,
});

/** A string matching `pattern`. */
export const patterned = (description: string, pattern: string, maxLength = 256): JsonSchema => ({
  type: 'string',
  pattern,
  maxLength,
  description,
});

/** A bounded integer, with an optional default. */
export const integer = (
  description: string,
  minimum: number,
  maximum: number,
  defaultValue?: number,
): JsonSchema => ({
  type: 'integer',
  minimum,
  maximum,
  ...(defaultValue === undefined ? {} : { default: defaultValue }),
  description,
});

/** A bounded number, with an optional default. */
export const decimal = (
  description: string,
  minimum: number,
  maximum: number,
  defaultValue?: number,
): JsonSchema => ({
  type: 'number',
  minimum,
  maximum,
  ...(defaultValue === undefined ? {} : { default: defaultValue }),
  description,
});

/** A non-negative integer (counts and versions in response sketches). */
export const count = (description: string): JsonSchema => ({
  type: 'integer',
  minimum: 0,
  description,
});

/** A boolean, with an optional default. */
export const flag = (description: string, defaultValue?: boolean): JsonSchema => ({
  type: 'boolean',
  ...(defaultValue === undefined ? {} : { default: defaultValue }),
  description,
});

/** An ISO 8601 UTC timestamp (`2025-01-31T12:00:00Z`). */
export const dateTime = (description: string): JsonSchema => ({
  type: 'string',
  format: 'date-time',
  maxLength: 64,
  description,
});

/** One of a fixed list of strings, with an optional default. */
export const choice = (
  values: readonly string[],
  description: string,
  defaultValue?: string,
): JsonSchema => ({
  type: 'string',
  enum: [...values],
  ...(defaultValue === undefined ? {} : { default: defaultValue }),
  description,
});

/** A bounded array. */
export const arrayOf = (
  items: JsonSchema,
  description: string,
  bounds: { minItems?: number; maxItems: number; uniqueItems?: boolean },
): JsonSchema => ({
  type: 'array',
  items,
  ...(bounds.minItems === undefined ? {} : { minItems: bounds.minItems }),
  maxItems: bounds.maxItems,
  ...(bounds.uniqueItems ? { uniqueItems: true } : {}),
  description,
});

/** A free-form JSON object (payloads, arguments, attributes): its keys are not fixed. */
export const freeObject = (description: string, maxProperties?: number): JsonSchema => ({
  type: 'object',
  ...(maxProperties === undefined ? {} : { maxProperties }),
  description,
});

/** A prefixed id given as a body field or query filter (same pattern as the path form). */
export const idRef = (prefix: string, description: string): JsonSchema =>
  prefixedId(prefix, description);

/** A client-chosen shared-context id given as a body field or query filter. */
export const contextRef = (description: string): JsonSchema => ({ ...contextId, description });

/** Any JSON value (response sketches only). */
export const anyValue = (description: string): JsonSchema => ({ description });

/** A response object sketch: open (responses may grow fields), properties documented. */
export const view = (
  properties: Record<string, JsonSchema>,
  required: string[] = [],
  description?: string,
): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
  ...(description ? { description } : {}),
});

/** A response field that may be null. */
export const nullable = (schema: JsonSchema): JsonSchema => {
  const type = schema.type;
  if (typeof type === 'string') return { ...schema, type: [type, 'null'] };
  return { anyOf: [schema, { type: 'null' }], description: schema.description };
};

/** Filters shared by time-ranged lists. */
export const sinceParam = dateTime('Only rows at or after this instant (ISO 8601 UTC).');
export const untilParam = dateTime('Only rows before this instant (ISO 8601 UTC).');

/** A Kubernetes-style condition on a reconciled object. */
export const conditionView = view(
  {
    type: text('Condition type, e.g. `Reconciled`.'),
    status: choice(['True', 'False', 'Unknown'], 'Condition status.'),
    reason: text('Machine-readable CamelCase reason.'),
    message: text('Human-readable explanation.', 1024, 0),
    last_transition_time: dateTime('When the status last changed.'),
  },
  ['type', 'status', 'last_transition_time'],
  'A Kubernetes-style condition.',
);

/** Reconciled external state of one world object. */
export const externalStateView = view(
  {
    object_id: idRef('obj', 'World object id.'),
    fields: freeObject('Merged external fields (newest `occurred_at` wins per field).'),
    generation: count('Bumped by every applied event.'),
    observed_generation: count('Generation the reconciler has fully processed.'),
    conditions: arrayOf(conditionView, 'Current conditions.', { maxItems: 64 }),
    last_event_id: nullable(idRef('evt', 'Newest applied event.')),
    updated_at: dateTime('When the external state last changed.'),
  },
  ['object_id', 'fields', 'generation', 'observed_generation', 'conditions'],
  'Reconciled external state of one world object.',
);

/** Reconciliation outcomes of an ingested event. */
export const RECONCILIATION_OUTCOMES = ['applied', 'stale', 'unmatched', 'conflict'] as const;

/** The reconciliation output of one ingested event. */
export const reconciliationView = view(
  {
    event_id: idRef('evt', 'Ingested event id.'),
    reconciliation_id: idRef('rec', 'Reconciliation record id.'),
    outcome: choice(RECONCILIATION_OUTCOMES, 'What reconciliation did with the event.'),
    world_object_ref: nullable(text('World object the event named.', 128)),
    shared_context_id: nullable(contextRef('Shared context the event named.')),
    applied_fields: arrayOf(text('Field name.', 128), 'Fields merged into the object.', {
      maxItems: 256,
    }),
    reason: nullable(text('Why the event was stale, unmatched or in conflict.', 1024)),
    generation: nullable(count('Object generation after the event.')),
    reconciled_at: dateTime('When the event was reconciled.'),
  },
  ['event_id', 'outcome', 'reconciled_at'],
  'Reconciliation output of one ingested event.',
);

/** Query of a route that takes none. */
export type NoQuery = Record<string, never>;

/** Query of a paged list: `limit` (1..500, default 50) and an opaque `cursor`. */
export type PagedQuery = { limit?: number; cursor?: string };

/** Query of a route keyed by an optional world object. */
export type ObjectFilterQuery = { object_id?: string };

/** Path parameters of a route that has none. */
export type NoParams = Record<string, never>;

/** A response view with more fields (a detail view over a list item). */
export const extendView = (
  base: JsonSchema,
  properties: Record<string, JsonSchema>,
  required: string[] = [],
): JsonSchema => {
  const baseRequired = Array.isArray(base.required) ? (base.required as string[]) : [];
  const allRequired = [...baseRequired, ...required];
  return {
    ...base,
    properties: { ...(base.properties as Record<string, JsonSchema>), ...properties },
    ...(allRequired.length > 0 ? { required: allRequired } : {}),
  };
};
