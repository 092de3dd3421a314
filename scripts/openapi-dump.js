// Prints the OpenAPI document the built service serves (from dist/), for comparing builds:
//   npm run build && node scripts/openapi-dump.js > before.json
const { allRoutes } = require('../dist/src/api/app');
const { buildOpenApiDocument } = require('../dist/src/api/openapi');

let document;
const routes = allRoutes(() => document);
document = buildOpenApiDocument(routes, 'http://127.0.0.1:8000');
process.stdout.write(`${JSON.stringify(document, null, 1)}\n`);
