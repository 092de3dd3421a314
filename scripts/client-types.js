// The client's generated sources (packages/client/src) from the built service's OpenAPI
// document. `npm run client:types` writes them after a change to any route; with `--check`
// it writes nothing and exits 1 naming each file that differs (the test suite runs that).
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { allRoutes } = require('../dist/src/api/app');
const { buildOpenApiDocument } = require('../dist/src/api/openapi');
const { generateClientSources } = require('../packages/client/scripts/generate');

const check = process.argv.includes('--check');
// The document route's own callback is not called while the document is built.
const document = buildOpenApiDocument(
  allRoutes(() => ({})),
  'http://127.0.0.1:8000',
);
generateClientSources(document).then((files) => {
  const stale = [];
  for (const [name, text] of Object.entries(files)) {
    const path = join(__dirname, '..', 'packages', 'client', 'src', name);
    if (!check) writeFileSync(path, text);
    else if (readFileSync(path, 'utf8') !== text) stale.push(`packages/client/src/${name}`);
  }
  if (stale.length > 0) {
    console.error(`out of date (run npm run client:types): ${stale.join(', ')}`);
    process.exit(1);
  }
  console.log(check ? 'client sources match the served document' : 'client sources written');
});
