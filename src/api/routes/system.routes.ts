import { Type } from '@sinclair/typebox';
import { arrayOf, choice, count, freeObject, pathParams, text, view } from '../../lib/schema';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readinessOf } from '../../observability/readiness';
import { ApiError } from '../errors';
import { API_VERSION } from '../openapi';
import { defineRoute, tagged, type RouteDefinition } from '../route';

const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Governed Runtime API</title>
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>`;

const DOCS_INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});`;

const objectBody = Type.Object({});
const healthView = view(
  {
    status: choice(['ok'], 'The process is up.'),
    version: text('API version.', 32),
    uptime_seconds: count('Seconds since the process started.'),
  },
  ['status', 'version', 'uptime_seconds'],
);
const readinessView = view(
  {
    status: choice(['ready', 'degraded', 'not_ready'], 'Readiness verdict.'),
    failing: arrayOf(text('A failing dependency.', 32), 'Failing dependencies.', { maxItems: 8 }),
    checks: freeObject('One check per dependency: `ok`, and `error` when failing.'),
  },
  ['status', 'failing', 'checks'],
);

// The package's entry point loads the whole Swagger UI bundle; only its files are needed.
const SWAGGER_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));

/** Root, health, readiness, the OpenAPI document, its interactive reference and metrics. */
export function systemRoutes(openApiDocument: () => Record<string, unknown>): RouteDefinition[] {
  return tagged('system', [
    defineRoute({
      operationId: 'system.root',
      method: 'GET',
      path: '/',
      family: 'public',
      summary: 'API root descriptor',
      description:
        'Name, version and links to the docs, the approvals console, the OpenAPI document and the Temporal Web UI (all but the last under `PUBLIC_BASE_URL`).',
      responses: { 200: { description: 'Root descriptor.', schema: objectBody } },
      handler: async (_req, deps) => ({
        bare: {
          name: 'governed-runtime',
          version: API_VERSION,
          links: {
            docs: `${deps.config.publicBaseUrl}/docs`,
            console: `${deps.config.publicBaseUrl}/console`,
            openapi: `${deps.config.publicBaseUrl}/openapi.json`,
            health: `${deps.config.publicBaseUrl}/healthz`,
            ready: `${deps.config.publicBaseUrl}/readyz`,
            temporal_ui: deps.config.temporalUiUrl,
            access_request: `${deps.config.publicBaseUrl}/v1/access/request`,
          },
        },
      }),
    }),
    defineRoute({
      operationId: 'system.healthz',
      method: 'GET',
      path: '/healthz',
      family: 'public',
      summary: 'liveness check',
      description: 'The process is up and serving HTTP; checks no dependency.',
      responses: { 200: { description: 'Alive.', schema: healthView } },
      handler: async (_req, deps) => ({
        bare: {
          status: 'ok',
          version: API_VERSION,
          uptime_seconds: Math.round((Date.now() - deps.startedAt.getTime()) / 1000),
        },
      }),
    }),
    defineRoute({
      operationId: 'system.readyz',
      method: 'GET',
      path: '/readyz',
      family: 'public',
      summary: 'readiness check',
      description:
        "Served from the service monitor's newest probe (no backend round trip per call). `ready`: MongoDB and Temporal answer and a worker polls the task queue; `degraded` (200): no worker polls, so work queues up but the api serves; `not_ready` (503): MongoDB or Temporal is down. `failing` names what fails.",
      responses: {
        200: { description: 'Ready.', schema: readinessView },
        503: { description: 'Not ready; `failing` names the dependencies.', schema: readinessView },
      },
      handler: async (_req, deps) => {
        const readiness = readinessOf(await deps.monitor.lastProbe(), deps.temporal.taskQueue);
        return { status: readiness.status === 'not_ready' ? 503 : 200, bare: readiness };
      },
    }),
    defineRoute({
      operationId: 'system.openapi',
      method: 'GET',
      path: '/openapi.json',
      family: 'public',
      summary: 'OpenAPI 3.1 document',
      description: 'Generated from the route tables that drive routing, auth and validation.',
      responses: { 200: { description: 'The OpenAPI document.', schema: objectBody } },
      handler: async () => ({ bare: openApiDocument() }),
    }),
    defineRoute({
      operationId: 'system.docs',
      method: 'GET',
      path: '/docs',
      family: 'public',
      summary: 'interactive API reference',
      description:
        'Swagger UI over /openapi.json, served from the swagger-ui-dist package (no CDN).',
      responses: { 200: { description: 'HTML page.' } },
      handler: async () => ({ raw: { body: DOCS_PAGE, contentType: 'text/html; charset=utf-8' } }),
    }),
    defineRoute({
      operationId: 'system.docs.asset',
      method: 'GET',
      path: '/docs/assets/{asset}',
      family: 'public',
      summary: 'interactive reference asset',
      hidden: true,
      request: {
        params: pathParams({
          asset: choice([...Object.keys(SWAGGER_ASSETS), 'init.js'], 'Asset file name.'),
        }),
      },
      responses: { 200: { description: 'Static asset.' } },
      handler: async (req) => {
        const { asset } = req.params;
        if (asset === 'init.js') {
          return { raw: { body: DOCS_INIT, contentType: 'application/javascript; charset=utf-8' } };
        }
        const body = await readFile(join(SWAGGER_DIR, asset));
        return {
          raw: { body, contentType: SWAGGER_ASSETS[asset] },
          headers: { 'Cache-Control': 'public, max-age=86400' },
        };
      },
    }),
    defineRoute({
      operationId: 'system.metrics',
      method: 'GET',
      path: '/metrics',
      family: 'admin_ops',
      summary: 'Prometheus metrics',
      description:
        'Request counts and latency by family and status, limiter rejections and workflow starts, in Prometheus text format. Operators only; also served without a key on METRICS_LISTEN when set.',
      responses: { 200: { description: 'Prometheus text exposition.' } },
      handler: async (_req, deps) => {
        const body = await deps.metrics.registry.metrics();
        if (!body) throw new ApiError('internal', 'metrics unavailable');
        return { raw: { body, contentType: deps.metrics.registry.contentType } };
      },
    }),
  ]);
}
