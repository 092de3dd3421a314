import { ApiError } from '../errors';
import type { JsonSchema, RouteDefinition, RouteResult } from '../route';

/**
 * Handler for a route whose capability is not built yet: 501 after auth and validation.
 * `issue` names the issue that owns it; without one the capability is planned (roadmap).
 */
export function notImplemented(capability: string, issue?: number): RouteDefinition['handler'] {
  const message =
    issue === undefined
      ? `${capability} is not implemented yet (planned; see docs/roadmap.md)`
      : `${capability} is not implemented yet (tracked by issue #${issue})`;
  return (): Promise<RouteResult> =>
    Promise.reject(
      new ApiError('not_implemented', message, {
        extra: { capability, issue: issue ?? null },
      }),
    );
}

/** `limit` of every list: 1..500, default 50. */
export const limitParam: JsonSchema = {
  type: 'integer',
  minimum: 1,
  maximum: 500,
  default: 50,
  description: 'Page size (1..500).',
};

/** Opaque paging cursor from a previous page's `next_cursor`. */
export const cursorParam: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 512,
  pattern: '^[A-Za-z0-9_-]+$',
  description: 'Opaque cursor from the previous page (`next_cursor`).',
};

/** Query schema for a plain paged list, with extra filters. */
export function pagedQuery(filters: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    type: 'object',
    properties: { limit: limitParam, cursor: cursorParam, ...filters },
  };
}

/** A server-issued id with its type prefix, e.g. `ses_01J...`. */
export function prefixedId(prefix: string, description: string): JsonSchema {
  return {
    type: 'string',
    pattern: `^${prefix}_[0-9A-Za-z]{10,40}$`,
    description,
  };
}

/** A client-chosen shared-context id. */
export const contextId: JsonSchema = {
  type: 'string',
  pattern: '^[A-Za-z0-9_.:-]{1,128}$',
  description: 'Client-chosen shared-context id.',
};

/** A path-safe registry handle (scaffold, envelope, recognizer, pack ids). */
export const handleId = (description: string): JsonSchema => ({
  type: 'string',
  pattern: '^[A-Za-z0-9_.-]{1,128}$',
  description,
});

/** Path-parameter object schema with every listed parameter required. */
export function pathParams(params: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', properties: params, required: Object.keys(params) };
}

/** Body schema: a closed object (unknown fields are 422). */
export function closedObject(
  properties: Record<string, JsonSchema>,
  required: string[] = [],
  description?: string,
): JsonSchema {
  return {
    type: 'object',
    properties,
    required,
    additionalProperties: false,
    ...(description ? { description } : {}),
  };
}

/** `{ok: true, payload}` response schema around a payload schema. */
export function envelope(payload: JsonSchema = { type: 'object' }): JsonSchema {
  return {
    type: 'object',
    properties: { ok: { const: true }, payload },
    required: ['ok', 'payload'],
  };
}

/** A page of items. */
export function page(item: JsonSchema = { type: 'object' }): JsonSchema {
  return envelope({
    type: 'object',
    properties: {
      items: { type: 'array', items: item },
      next_cursor: { type: ['string', 'null'] },
    },
    required: ['items', 'next_cursor'],
  });
}
