import { FAMILIES, PUBLIC_FAMILY, layerName } from '../auth/families';
import { PLAIN_PATH, type RouteDefinition } from './route';
import { IDEMPOTENCY_KEY_PATTERN } from './middleware/idempotency';

/** A JSON Schema as the OpenAPI document carries it. */
type JsonSchema = Record<string, unknown>;

export { API_VERSION } from '../lib/version';
import { API_VERSION } from '../lib/version';
import { VALUE_SCHEMAS } from '../lib/schema';

const errorObject: JsonSchema = {
  type: 'object',
  properties: {
    code: { type: 'string', description: 'Machine-readable error code.' },
    message: { type: 'string' },
    request_id: { type: 'string' },
  },
  required: ['code', 'message', 'request_id'],
};

const errorBody: JsonSchema = {
  type: 'object',
  properties: {
    ok: { const: false },
    error: errorObject,
    detail: { type: 'string' },
  },
  required: ['ok', 'error', 'detail'],
};

const validationErrorBody: JsonSchema = {
  type: 'object',
  description: 'FastAPI-compatible HTTPValidationError, inside the error envelope.',
  properties: {
    ok: { const: false },
    error: errorObject,
    detail: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          loc: { type: 'array', items: { type: ['string', 'integer'] } },
          msg: { type: 'string' },
          type: { type: 'string' },
        },
        required: ['loc', 'msg', 'type'],
      },
    },
  },
  required: ['ok', 'error', 'detail'],
};

const errorResponse = (description: string, schema = '#/components/schemas/Error') => ({
  description,
  content: { 'application/json': { schema: { $ref: schema } } },
});

const responseHeader = (type: 'integer' | 'string', description: string) => ({
  schema: { type },
  description,
});

const rateLimitHeaders = {
  'RateLimit-Limit': responseHeader('integer', 'Requests allowed in the closest window.'),
  'RateLimit-Remaining': responseHeader('integer', 'Requests left in that window.'),
  'RateLimit-Reset': responseHeader('integer', 'Seconds until that window resets.'),
  'RateLimit-Policy': responseHeader(
    'string',
    'Every window: `"minute";q=60;w=60, "day";q=1000;w=86400`.',
  ),
};

/** OpenAPI 3.1 document generated from the route tables that drive routing and validation. */
export function buildOpenApiDocument(
  routes: RouteDefinition[],
  serverUrl: string,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, JsonSchema> = {
    Error: errorBody,
    HTTPValidationError: validationErrorBody,
  };
  const spellsOtherPath = pathsOfTheirOwn(routes);
  for (const route of routes) {
    if (route.hidden) continue;
    const operations = (paths[route.path] ??= {});
    const operation = operationOf(route, schemas);
    if (spellsOtherPath(route)) {
      (operation['responses'] as Record<string, unknown>)['405'] = errorResponse(
        'Method not allowed: the path given is a route of its own (`/v1/external-events/ingest` for `{event_id}`), which does not have this method; `Allow` lists the methods it has.',
      );
    }
    operations[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Governed Runtime API',
      version: API_VERSION,
      description:
        'Approval-gated outbound actions, substrate jobs and a world model behind a governed HTTP JSON API. ' +
        'Authenticate with `X-API-Key`; get a sandbox key from `POST /v1/access/request`. ' +
        'Each operation names its route family (`x-route-family`) and the entitlement class and access layer it needs.',
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: { ...VALUE_SCHEMAS, ...schemas },
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    },
  };
}

/**
 * Whether a route's parameters can spell the path of a route without parameters that lacks
 * its method: such a request is 405 (`unknownMethods`), not this route's answer.
 */
function pathsOfTheirOwn(routes: RouteDefinition[]): (route: RouteDefinition) => boolean {
  const methods = new Map<string, Set<string>>();
  for (const route of routes) {
    if (!PLAIN_PATH.test(route.path)) continue;
    const key = route.path.toLowerCase();
    methods.set(key, (methods.get(key) ?? new Set()).add(route.method));
  }
  return (route) => {
    if (!route.path.includes('{')) return false;
    const template = new RegExp(
      `^${route.path
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
        .join('[^/]+')}$`,
      'i',
    );
    return [...methods].some(([path, own]) => template.test(path) && !own.has(route.method));
  };
}

function operationOf(
  route: RouteDefinition,
  schemas: Record<string, JsonSchema>,
): Record<string, unknown> {
  const isPublic = route.family === PUBLIC_FAMILY;
  const parameters: unknown[] = [];
  for (const [source, schema] of [
    ['path', route.request?.params],
    ['query', route.request?.query],
  ] as const) {
    const properties = (schema?.['properties'] ?? {}) as Record<string, JsonSchema>;
    const required = (schema?.['required'] ?? []) as string[];
    for (const [name, property] of Object.entries(properties)) {
      parameters.push({
        name,
        in: source,
        required: source === 'path' || required.includes(name),
        description: property['description'],
        schema: property,
      });
    }
  }
  if (route.idempotent) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Repeat-safe creation: the same key and body replays the first answer; another body is 409. 1..255 visible ASCII characters (`!` to `~`, no spaces).',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN },
    });
  }

  const responses: Record<string, unknown> = {};
  if (route.request?.params) {
    responses['404'] = errorResponse(
      'No such resource: an identifier in the path that the server never issued, or that names nothing now.',
    );
  }
  for (const [status, doc] of Object.entries(route.responses)) {
    // An error status a route declares (404 for an id in the body, 409 for a state) is
    // answered in the one error shape.
    if (Number(status) >= 400 && !doc.schema) {
      responses[status] = errorResponse(doc.description);
      continue;
    }
    responses[status] = {
      description: doc.description,
      ...(isPublic ? {} : { headers: rateLimitHeaders }),
      ...(doc.schema ? { content: { 'application/json': { schema: doc.schema } } } : {}),
      ...(doc.links ? { links: doc.links } : {}),
    };
  }
  if (!isPublic) {
    responses['401'] = errorResponse('API key missing or invalid.');
    // A route that refuses for reasons of its own (a rule, a signature) adds them here.
    const refusals = route.responses[403] as { description: string } | undefined;
    responses['403'] = errorResponse(
      `Entitlement class, access layer or role below the route family.${refusals ? ` ${refusals.description}` : ''}`,
    );
    // A route with limits of its own (heavy work) adds their codes to the common ones.
    const own = route.responses[429] as { description: string } | undefined;
    responses['429'] = errorResponse(
      `Rate limit (\`rate_limited\`) or daily quota (\`quota_exceeded\`) exceeded; see \`Retry-After\`.${own ? ` ${own.description}` : ''}`,
    );
    responses['503'] = errorResponse(
      'A backend (the database or Temporal) is not answering (`unavailable`); retry after `Retry-After`.',
    );
  }
  if (route.request?.body) {
    responses['413'] = errorResponse('Body larger than 1 MiB.');
    responses['415'] = errorResponse('Body is not application/json.');
  }
  if (route.request?.query) {
    // The HTTP server answers it before any route runs (`src/api/http-server.ts`); a query
    // string is where a caller makes the request line that long.
    responses['431'] = errorResponse(
      'The request line and headers exceed 16 KiB (a long query string counts).',
    );
  }
  if (route.request) {
    responses['422'] = errorResponse(
      'Validation error.',
      '#/components/schemas/HTTPValidationError',
    );
  }
  if (route.idempotent)
    responses['409'] ??= errorResponse('Idempotency-Key reused with a different request.');

  const operation: Record<string, unknown> = {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags ?? [route.family],
    parameters,
    responses,
    security: isPublic ? [] : [{ ApiKey: [] }],
    'x-route-family': route.family,
  };
  if (!isPublic) {
    const policy = FAMILIES[route.family as keyof typeof FAMILIES];
    operation['x-exposure'] = policy.exposure;
    operation['x-min-entitlement'] = policy.minEntitlement;
    operation['x-min-access-layer'] = layerName(policy.minLayer);
    if (policy.operatorOnly) operation['x-operator-only'] = true;
  }
  if (route.request?.body) {
    const { name, schema, required } = route.request.body;
    schemas[name] = schema;
    operation['requestBody'] = {
      required: required ?? true,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
    };
  }
  return operation;
}
