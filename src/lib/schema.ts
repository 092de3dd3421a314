/**
 * Schema builders shared by every domain (TypeBox): each one emits the same JSON Schema the
 * api validates with ajv and publishes in the OpenAPI document, and carries the static type
 * that `Static<typeof schema>` derives, so a request type is never written twice. Every
 * builder takes the field's `description` (it flows into the OpenAPI document) and bounds.
 */
import {
  Type,
  type Static,
  type TArray,
  type TBoolean,
  type TInteger,
  type TNumber,
  type TObject,
  type TOptional,
  type TProperties,
  type TSchema,
  type TString,
  type TUnsafe,
} from '@sinclair/typebox';

export type { Static, TObject, TSchema } from '@sinclair/typebox';

/** Properties of `P`, those not named in `R` optional. */
export type WithOptional<P extends TProperties, R extends string> = {
  [K in keyof P]: K extends R ? P[K] : TOptional<P[K]>;
};

function optionalize<P extends TProperties, R extends string>(
  properties: P,
  required: readonly R[],
): WithOptional<P, R> {
  const out: TProperties = {};
  for (const [name, schema] of Object.entries(properties)) {
    out[name] = (required as readonly string[]).includes(name) ? schema : Type.Optional(schema);
  }
  return out as WithOptional<P, R>;
}

const withDescription = (description?: string) => (description ? { description } : {});

/** A bounded string. */
export const text = (description: string, maxLength = 256, minLength = 1): TString =>
  Type.String({ minLength, maxLength, description });

/** A string matching `pattern`. */
export const patterned = (description: string, pattern: string, maxLength = 256): TString =>
  Type.String({ pattern, maxLength, description });

/** A bounded integer, with an optional default. */
export const integer = (
  description: string,
  minimum: number,
  maximum: number,
  defaultValue?: number,
): TInteger =>
  Type.Integer({
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
): TNumber =>
  Type.Number({
    minimum,
    maximum,
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
    description,
  });

/** A non-negative integer (counts and versions in views). */
export const count = (description: string): TInteger => Type.Integer({ minimum: 0, description });

/** A boolean, with an optional default. */
export const flag = (description: string, defaultValue?: boolean): TBoolean =>
  Type.Boolean({ ...(defaultValue === undefined ? {} : { default: defaultValue }), description });

/** An ISO 8601 UTC timestamp (`2025-01-31T12:00:00Z`). */
export const dateTime = (description: string): TString =>
  Type.String({ format: 'date-time', maxLength: 64, description });

/**
 * One of a fixed list of strings, with an optional default. Kept as a JSON Schema `enum`
 * (not a union of literals) so a miss reads "Input should be 'a', 'b' or 'c'".
 */
export const choice = <const V extends readonly string[]>(
  values: V,
  description: string,
  defaultValue?: V[number],
): TUnsafe<V[number]> =>
  Type.Unsafe<V[number]>({
    type: 'string',
    enum: [...values],
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
    description,
  });

/** A bounded array. */
export const arrayOf = <T extends TSchema>(
  items: T,
  description: string,
  bounds: { minItems?: number; maxItems: number; uniqueItems?: boolean },
): TArray<T> =>
  Type.Array(items, {
    ...(bounds.minItems === undefined ? {} : { minItems: bounds.minItems }),
    maxItems: bounds.maxItems,
    ...(bounds.uniqueItems ? { uniqueItems: true } : {}),
    description,
  });

/**
 * A free-form JSON object (payloads, arguments, attributes): its keys are not fixed;
 * `values` says what its keys and values may be, where a request states it.
 */
export const freeObject = (
  description: string,
  maxProperties?: number,
  values: Record<string, unknown> = {},
): TUnsafe<Record<string, unknown>> =>
  Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    ...(maxProperties === undefined ? {} : { maxProperties }),
    description,
    ...values,
  });

/** The largest integer a JSON number holds exactly (2^53 − 1). */
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;
const valueRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const scalars = [
  { type: 'null' },
  { type: 'boolean' },
  { type: 'string' },
  { type: 'number', minimum: -SAFE_INTEGER, maximum: SAFE_INTEGER },
];
/** A key MongoDB (and FerretDB) can hold: no leading `$`, no `.` or NUL. */
const STORED_KEY = { pattern: '^(?!\\$)[^.\\u0000]*$' };

/**
 * Free-form values as the service takes them, stated once as components that the OpenAPI
 * document publishes and request validation resolves: numbers within ±(2^53 − 1) at any
 * depth (the body layer refuses others, `src/lib/json-text.ts`), and in a stored body keys
 * the store can hold and no array directly in an array (`validation.ts`, `unstorableParts`).
 * Those layers keep their own 422s: errors from these components only restate them.
 */
export const VALUE_SCHEMAS = {
  JsonValue: {
    description: 'Any JSON value whose numbers are within ±(2^53 − 1).',
    anyOf: [...scalars, valueRef('JsonArray'), valueRef('JsonObject')],
  },
  JsonArray: { type: 'array', items: valueRef('JsonValue') },
  JsonObject: { type: 'object', additionalProperties: valueRef('JsonValue') },
  StoredValue: {
    description:
      'A JSON value the service stores as sent: numbers within ±(2^53 − 1), keys without a leading `$`, `.` or NUL, no array directly in an array.',
    anyOf: [...scalars, { type: 'array', items: valueRef('StoredItem') }, valueRef('StoredObject')],
  },
  StoredItem: { anyOf: [...scalars, valueRef('StoredObject')] },
  StoredObject: {
    type: 'object',
    propertyNames: STORED_KEY,
    additionalProperties: valueRef('StoredValue'),
  },
} as const;

const valueParts = new WeakSet<object>();
(function collect(node: unknown): void {
  if (typeof node !== 'object' || node === null || valueParts.has(node)) return;
  valueParts.add(node);
  for (const inner of Object.values(node)) collect(inner);
})(VALUE_SCHEMAS);

/** Whether `schema` is (part of) a value component: its errors restate other layers' 422s. */
export const isValueSchema = (schema: unknown): boolean =>
  typeof schema === 'object' && schema !== null && valueParts.has(schema);

/**
 * A free-form request object the service stores as sent (its values as `StoredValue`);
 * `keyLength` bounds its own keys' lengths (not `__proto__`, which no body may hold).
 */
export const storedObject = (
  description: string,
  maxProperties?: number,
  keyLength?: { min: number; max: number },
): TUnsafe<Record<string, unknown>> =>
  freeObject(description, maxProperties, {
    propertyNames: keyLength
      ? {
          ...STORED_KEY,
          minLength: keyLength.min,
          maxLength: keyLength.max,
          not: { const: '__proto__' },
        }
      : STORED_KEY,
    additionalProperties: valueRef('StoredValue'),
  });

/** A free-form request value the service reads but does not store (`JsonValue`). */
export const jsonValue = (description: string): TUnsafe<unknown> =>
  Type.Unsafe<unknown>({ ...valueRef('JsonValue'), description });

/** A free-form request object the service reads but does not store (`JsonValue` values). */
export const jsonObject = (
  description: string,
  maxProperties?: number,
): TUnsafe<Record<string, unknown>> =>
  freeObject(description, maxProperties, { additionalProperties: valueRef('JsonValue') });

/** Any JSON value. */
export const anyValue = (description: string): TUnsafe<unknown> =>
  Type.Unsafe<unknown>({ description });

/**
 * A server-issued id with its type prefix, e.g. `ses_01J...`. `maxLength` says what the
 * pattern implies, so generators (and fuzzers) that read lengths, not patterns, stay in it.
 */
export const prefixedId = (prefix: string, description: string): TString =>
  Type.String({
    pattern: `^${prefix}_[0-9A-Za-z]{10,40}$`,
    maxLength: prefix.length + 41,
    description,
  });

/** A prefixed id given as a body field or query filter (same pattern as the path form). */
export const idRef = prefixedId;

/** Pattern of a client-chosen shared-context id. */
export const CONTEXT_ID_PATTERN = '^[A-Za-z0-9_.:-]{1,128}$';

/** A client-chosen shared-context id. */
export const contextRef = (description = 'Client-chosen shared-context id.'): TString =>
  Type.String({ pattern: CONTEXT_ID_PATTERN, maxLength: 128, description });

/** A path-safe registry handle (scaffold, envelope, recognizer, pack ids). */
export const handleId = (description: string): TString =>
  Type.String({ pattern: '^[A-Za-z0-9_.-]{1,128}$', maxLength: 128, description });

/** A view (response object): open, since views may grow fields; properties documented. */
export const view = <P extends TProperties, const R extends readonly (keyof P & string)[] = []>(
  properties: P,
  required: R = [] as unknown as R,
  description?: string,
): TObject<WithOptional<P, R[number]>> =>
  Type.Object(optionalize<P, R[number]>(properties, required), withDescription(description));

/** An input object: closed, so unknown fields are 422. */
export const closedObject = <
  P extends TProperties,
  const R extends readonly (keyof P & string)[] = [],
>(
  properties: P,
  required: R = [] as unknown as R,
  description?: string,
): TObject<WithOptional<P, R[number]>> =>
  Type.Object(optionalize<P, R[number]>(properties, required), {
    additionalProperties: false,
    ...withDescription(description),
  });

/** A view with more fields (a detail view over a list item). */
export const extendView = <
  B extends TProperties,
  P extends TProperties,
  const R extends readonly (keyof P & string)[] = [],
>(
  base: TObject<B>,
  properties: P,
  required: R = [] as unknown as R,
): TObject<B & WithOptional<P, R[number]>> => {
  const { properties: baseProperties, type: _type, ...options } = base;
  return Type.Object(
    { ...baseProperties, ...optionalize(properties, required) },
    options,
  ) as unknown as TObject<B & WithOptional<P, R[number]>>;
};

/**
 * A field that may be null: kept as `type: [t, "null"]` where the schema has one type (and
 * `null` joins an `enum`, which would otherwise still refuse it).
 */
export const nullable = <T extends TSchema>(schema: T): TUnsafe<Static<T> | null> => {
  const { type, enum: values } = schema as { type?: unknown; enum?: unknown[] };
  if (typeof type === 'string') {
    return Type.Unsafe<Static<T> | null>({
      ...schema,
      type: [type, 'null'],
      ...(Array.isArray(values) ? { enum: [...values, null] } : {}),
    });
  }
  return Type.Unsafe<Static<T> | null>({
    anyOf: [schema, { type: 'null' }],
    ...withDescription((schema as { description?: string }).description),
  });
};

/** `limit` of every list: 1..500, default 50. */
export const limitParam = integer('Page size (1..500).', 1, 500, 50);

/**
 * Query of a paged list: `limit`, `cursor` (its list's format, `src/lib/cursor.ts`) and
 * optional filters.
 */
export const pagedQuery = <F extends TProperties = Record<never, never>>(
  cursor: TString,
  filters: F = {} as F,
): TObject<WithOptional<{ limit: typeof limitParam; cursor: TString } & F, never>> =>
  Type.Object(optionalize({ limit: limitParam, cursor, ...filters }, []));

/** The filters of a paged query: what a repository's list takes. */
export type ListFilter<Q> = Omit<Q, 'limit' | 'cursor'>;

/** A query of optional filters (no paging). */
export const filterQuery = <F extends TProperties>(filters: F): TObject<WithOptional<F, never>> =>
  Type.Object(optionalize(filters, []));

/** Path parameters, every one required. */
export const pathParams = <P extends TProperties>(params: P): TObject<P> => Type.Object(params);

/** Filters shared by time-ranged lists. */
export const sinceParam = dateTime('Only rows at or after this instant (ISO 8601 UTC).');
export const untilParam = dateTime('Only rows before this instant (ISO 8601 UTC).');

/** `workflow_url` of a workflow-backed resource: its page in the Temporal Web UI. */
export const workflowUrl = text(
  'The workflow in the Temporal Web UI (`<TEMPORAL_UI_URL>/namespaces/<namespace>/workflows/<workflow_id>`): its summary, current details and history (docs/temporal-ui.md).',
  2048,
);

/**
 * A rule across the fields of an input object, stated in the schema so the OpenAPI document
 * (and the clients and fuzzers generated from it) and validation are one source. It sits in
 * the object's `allOf`; `description` is the rule in words and the 422 message of an input
 * that breaks it (`src/lib/validation.ts` reads it). Keep to `not`, `if`/`then` and `oneOf`:
 * JSON Schema keywords that ajv, OpenAPI 3.1 and schemathesis all know.
 */
export interface FieldRule {
  /** The rule in words, and the message of a 422 that breaks it. */
  description?: string;
  /** Instead of `description`: a note, and the 422s are worded as for any other field. */
  $comment?: string;
  not?: Record<string, unknown>;
  if?: Record<string, unknown>;
  then?: Record<string, unknown>;
  oneOf?: Record<string, unknown>[];
}

/** `a` and `b` are not given together (the 422 names `b`). */
export const notBoth = (a: string, b: string, description: string): FieldRule => ({
  description,
  not: { required: [a, b] },
});

/** Exactly one of `a` and `b` is given (the 422 names the object). */
export const oneOfFields = (a: string, b: string, description: string): FieldRule => ({
  description,
  oneOf: [
    { required: [a], not: { required: [b] } },
    { required: [b], not: { required: [a] } },
  ],
});

/** When the input matches `condition`, it must also match `then` (the 422 names what breaks `then`). */
export const when = (
  condition: Record<string, unknown>,
  then: Record<string, unknown>,
  description: string,
): FieldRule => ({ description, if: condition, then });

/**
 * When the input matches `condition`, its fields must match `then`, and a 422 says what is
 * wrong with each as usual (`missing`, `extra_forbidden`...): for per-case field schemas.
 * `default`s in `then` are dropped: validation would fill them in, here they only document.
 */
export const shapedWhen = (
  condition: Record<string, unknown>,
  then: Record<string, unknown>,
  comment: string,
): FieldRule => ({ $comment: comment, if: condition, then: withoutDefaults(then) });

function withoutDefaults(value: unknown): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(value, (key, inner: unknown) => (key === 'default' ? undefined : inner)),
  ) as Record<string, unknown>;
}

/** The object with these rules (its static type is unchanged: the rules only narrow it). */
export const withRules = <T extends TSchema>(object: T, rules: readonly FieldRule[]): T => ({
  ...object,
  allOf: [...((object as { allOf?: FieldRule[] }).allOf ?? []), ...rules],
});
