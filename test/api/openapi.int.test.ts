import seedRoutes from '../fixtures/seed-routes.json';
import { call } from '../helpers/http';
import { startTestApp, type TestApp } from '../helpers/test-app';

type Operation = Record<string, unknown> & { parameters: { name: string; in: string }[] };
interface OpenApiDoc {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

let app: TestApp;
let doc: OpenApiDoc;
beforeAll(async () => {
  app = await startTestApp('openapi');
  doc = (await call<OpenApiDoc>(app.url, 'GET', '/openapi.json')).body;
});
afterAll(() => app.close());

describe('GET /openapi.json', () => {
  it('is OpenAPI 3.1 with info.version 1.1.0', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.1.0');
    expect(doc.components.securitySchemes).toHaveProperty('ApiKey');
  });

  it('describes every one of the 111 seed routes', () => {
    expect(seedRoutes).toHaveLength(111);
    const missing = seedRoutes.filter((r) => !doc.paths[r.path]?.[r.method.toLowerCase()]);
    expect(missing).toEqual([]);
  });

  it('gives each operation an id, a family, its security and error responses', () => {
    const ids = new Set<string>();
    for (const { method, path } of seedRoutes) {
      const op = doc.paths[path][method.toLowerCase()];
      expect(typeof op['operationId']).toBe('string');
      expect(ids.has(op['operationId'] as string)).toBe(false);
      ids.add(op['operationId'] as string);
      expect(typeof op['x-route-family']).toBe('string');
      const responses = op['responses'] as Record<string, unknown>;
      if (op['x-route-family'] !== 'public') {
        expect(op['security']).toEqual([{ ApiKey: [] }]);
        expect(responses).toHaveProperty('401');
        expect(responses).toHaveProperty('403');
        expect(responses).toHaveProperty('429');
      }
      const pathParams = [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
      for (const name of pathParams) {
        expect(op.parameters).toEqual(
          expect.arrayContaining([expect.objectContaining({ name, in: 'path' })]),
        );
      }
    }
  });

  it('names the request bodies as components', () => {
    for (const name of [
      'SandboxAccessRequest',
      'SessionCreateRequest',
      'SessionStepRequest',
      'CreateWorldTaskRequest',
      'UpdateWorldTaskRequest',
      'ExternalEventRequest',
      'ExternalEventBatchRequest',
      'ExternalActionRequest',
      'ExternalActionDecisionRequest',
      'CheckpointRequest',
      'RunSocialAssayRequest',
      'SubstrateSpecRequest',
      'SubstrateDeployRequest',
      'SubstrateObserveRequest',
      'SubstrateAssayRequest',
      'SubstrateRecognizeRequest',
      'SubstrateRenderRequest',
    ]) {
      expect(doc.components.schemas).toHaveProperty(name);
    }
  });

  it('documents the list limit as 1..500 defaulting to 50', () => {
    const op = doc.paths['/v1/external-events/history']['get'];
    const limit = op.parameters.find((p) => p.name === 'limit') as unknown as {
      schema: Record<string, unknown>;
    };
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 500, default: 50 });
  });

  // Stateful fuzzing (docs/fuzzing.md) follows these links; a broken one silently tests nothing.
  it('links what creates keys, actions, sessions, deployments and webhooks to what reads and changes them', () => {
    type Link = {
      operationId: string;
      parameters?: Record<string, string>;
      requestBody?: Record<string, unknown>;
    };
    const operations = new Map<string, Operation>();
    for (const methods of Object.values(doc.paths))
      for (const op of Object.values(methods)) operations.set(op['operationId'] as string, op);
    const schemaAt = (schema: Record<string, unknown>, pointer: string): unknown =>
      pointer
        .split('/')
        .slice(1)
        .reduce<Record<string, unknown> | undefined>((at, part) => {
          if (!at) return undefined;
          const next = /^\d+$/.test(part)
            ? at['items']
            : (at['properties'] as Record<string, unknown> | undefined)?.[part];
          return next as Record<string, unknown> | undefined;
        }, schema);
    const expressions = (value: unknown): string[] =>
      typeof value === 'string'
        ? [value]
        : value && typeof value === 'object'
          ? Object.values(value).flatMap(expressions)
          : [];
    const linked = new Set<string>();
    for (const [source, op] of operations) {
      const responses = op['responses'] as Record<string, Record<string, unknown>>;
      for (const response of Object.values(responses)) {
        const links = (response['links'] ?? {}) as Record<string, Link>;
        const schema = (
          response['content'] as Record<string, { schema: Record<string, unknown> }>
        )?.['application/json']?.schema;
        for (const [name, link] of Object.entries(links)) {
          const where = `${source} → ${name}`;
          const target = operations.get(link.operationId);
          expect({ where, target: target ? link.operationId : undefined }).toEqual({
            where,
            target: link.operationId,
          });
          linked.add(`${source} → ${link.operationId}`);
          for (const parameter of Object.keys(link.parameters ?? {}))
            expect({
              where,
              parameter,
              known: target!.parameters.some((p) => p.name === parameter),
            }).toEqual({ where, parameter, known: true });
          if (link.requestBody) {
            const ref = (target!['requestBody'] as Record<string, never> | undefined)?.[
              'content'
            ]?.['application/json']?.['schema']?.['$ref'] as string | undefined;
            const body = doc.components.schemas[String(ref).split('/').pop()!] as {
              properties: Record<string, unknown>;
            };
            for (const field of Object.keys(link.requestBody))
              expect({ where, field, known: field in (body?.properties ?? {}) }).toEqual({
                where,
                field,
                known: true,
              });
          }
          // Every expression reads a field the answer's schema declares.
          for (const expression of [
            ...expressions(link.parameters),
            ...expressions(link.requestBody),
          ].filter((e) => e.startsWith('$response.body#'))) {
            const pointer = expression.slice('$response.body#'.length);
            expect({ where, pointer, declared: schemaAt(schema, pointer) !== undefined }).toEqual({
              where,
              pointer,
              declared: true,
            });
          }
        }
      }
    }
    for (const edge of [
      'admin.keys.create → admin.keys.setStatus',
      'admin.keys.create → admin.keys.rotate',
      'admin.principals.create → admin.keys.create',
      'admin.subscriptions.create → admin.subscriptions.setStatus',
      'admin.subscriptions.create → admin.subscriptions.deliveries',
      'actions.propose → actions.get',
      'actions.propose → actions.approve',
      'actions.propose → actions.execute',
      'sessions.create → sessions.get',
      'sessions.create → sessions.step',
      'worlds.objects.list → worlds.objects.get',
      'worlds.tasks.create → worlds.tasks.update',
      'substrates.compile → substrates.deploy',
      'substrates.deploy → substrates.deployments.get',
      'substrates.deploy → substrates.observe',
    ])
      expect(linked).toContain(edge);
  });
});

describe('GET /docs', () => {
  it('serves the interactive reference from the package, assets included', async () => {
    const page = await call(app.url, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    for (const asset of [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])) {
      const res = await call(app.url, 'GET', asset);
      expect(res.status).toBe(200);
      expect(res.text.length).toBeGreaterThan(0);
    }
  });
});

describe('query parameters', () => {
  /**
   * Node answers a request line plus headers over 16 KiB with a bare 431 before the app
   * sees it. Every query value the document allows (its longest valid form: ids and the
   * like are ASCII) must fit well under that, so a client or fuzzer that keeps to the
   * document never meets that limit (docs/fuzzing.md).
   */
  const QUERY_BUDGET = 12 * 1024;

  it('bound every string and array, and fit under the HTTP header limit together', () => {
    const unbounded: string[] = [];
    const tooLong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        let total = path.length;
        for (const param of op.parameters ?? []) {
          if (param.in !== 'query') continue;
          const schema = (param as { schema?: Record<string, unknown> }).schema ?? {};
          const where = `${method.toUpperCase()} ${path} ?${param.name}`;
          const max = maxChars(schema);
          if (max === undefined) unbounded.push(where);
          else total += param.name.length + 2 + max;
        }
        if (total > QUERY_BUDGET) tooLong.push(`${method.toUpperCase()} ${path}: ${total}`);
      }
    }
    expect(unbounded).toEqual([]);
    expect(tooLong).toEqual([]);
  });
});

/** The longest a query value may be, in characters, or undefined when unbounded. */
function maxChars(schema: Record<string, unknown>): number | undefined {
  const alternatives = (schema['anyOf'] ?? schema['oneOf']) as
    Record<string, unknown>[] | undefined;
  if (alternatives) {
    const each = alternatives.map(maxChars);
    return each.includes(undefined) ? undefined : Math.max(...(each as number[]));
  }
  if (Array.isArray(schema['enum'])) {
    return Math.max(...(schema['enum'] as unknown[]).map((value) => String(value).length));
  }
  if (schema['const'] !== undefined) return JSON.stringify(schema['const']).length;
  switch (schema['type']) {
    case 'string':
      return typeof schema['maxLength'] === 'number' ? schema['maxLength'] : undefined;
    case 'integer':
    case 'number':
    case 'boolean':
      return 24;
    case 'array': {
      const item = maxChars((schema['items'] as Record<string, unknown> | undefined) ?? {});
      return typeof schema['maxItems'] === 'number' && item !== undefined
        ? schema['maxItems'] * (item + 1)
        : undefined;
    }
    default:
      return undefined;
  }
}
