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

  it('names the seed request bodies as components', () => {
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
