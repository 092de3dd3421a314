#!/usr/bin/env node
// Proves every built route had a 2xx answer checked against its response schema during the
// test run: test apps run with VALIDATE_RESPONSES (a mismatch answers 500 and fails the
// test) and write the routes they checked to .data/test/response-coverage/ when they stop.
'use strict';
const { readdirSync, readFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const { allRoutes } = require(join(root, 'dist/src/api/app.js'));
const { isPlanned } = require(join(root, 'dist/src/api/routes/common.js'));
const dir = join(root, '.data/test/response-coverage');

const checked = new Set();
if (existsSync(dir)) {
  for (const file of readdirSync(dir)) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n'))
      if (line) checked.add(line);
  }
}
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
