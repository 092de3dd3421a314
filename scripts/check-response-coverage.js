#!/usr/bin/env node
// Proves every built route had a 2xx answer checked against its response schema during the
// test run: test apps run with VALIDATE_RESPONSES (a mismatch answers 500 and fails the
// test) and write the routes they checked to .data/test/response-coverage/ when they stop.
// And that every status any route answered in the run is one its OpenAPI operation
// documents (.data/test/status-coverage/: `<operationId> <status>` lines).
'use strict';
const { readdirSync, readFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const { allRoutes } = require(join(root, 'dist/src/api/app.js'));
const { isPlanned } = require(join(root, 'dist/src/api/routes/common.js'));

/** Every line the test apps wrote under `.data/test/<kind>/`. */
function linesOf(kind) {
  const lines = new Set();
  const from = join(root, '.data/test', kind);
  if (!existsSync(from)) return lines;
  for (const file of readdirSync(from)) {
    for (const line of readFileSync(join(from, file), 'utf8').split('\n'))
      if (line) lines.add(line);
  }
  return lines;
}
const checked = linesOf('response-coverage');
const expected = allRoutes(() => ({}))
  .filter((route) => !route.hidden && !isPlanned(route))
  .filter((route) =>
    Object.keys(route.responses).some((s) => s >= 200 && s < 300 && route.responses[s].schema),
  );
const missing = expected
  .filter((route) => !checked.has(route.operationId))
  .map((r) => r.operationId);
if (missing.length > 0) {
  console.error(
    `response schemas: ${missing.length} of ${expected.length} built routes never had a 2xx checked:`,
  );
  for (const id of missing) console.error(`  ${id}`);
  process.exit(1);
}
console.log(
  `response schemas: all ${expected.length} built routes had a 2xx checked against their schema`,
);

const { buildOpenApiDocument } = require(join(root, 'dist/src/api/openapi.js'));
const routes = allRoutes(() => ({}));
const documented = new Map();
for (const methods of Object.values(buildOpenApiDocument(routes, 'http://localhost').paths)) {
  for (const operation of Object.values(methods)) {
    if (operation && operation.operationId) {
      documented.set(operation.operationId, new Set(Object.keys(operation.responses)));
    }
  }
}
const undocumented = [...linesOf('status-coverage')]
  .filter((line) => {
    const [operationId, status] = line.split(' ');
    const statuses = documented.get(operationId);
    return statuses !== undefined && !statuses.has(status);
  })
  .sort();
if (undocumented.length > 0) {
  console.error(
    `answered statuses: ${undocumented.length} answered in the tests but not documented in the OpenAPI document:`,
  );
  for (const line of undocumented) console.error(`  ${line}`);
  process.exit(1);
}
console.log('answered statuses: every status answered in the tests is documented');
