import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// The client's types are generated from the served OpenAPI document and checked in: a route
// changed without `npm run client:types` fails here. The generator runs in its own process
// (openapi-typescript loads ES modules jest does not) over the built service (npm test
// builds dist first).
it('the committed client sources match the served document', () => {
  const run = spawnSync(
    process.execPath,
    [join(__dirname, '../../scripts/client-types.js'), '--check'],
    {
      encoding: 'utf8',
    },
  );
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
});
