import { call } from '../helpers/http';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createTestKey, type TestKey } from '../helpers/keys';

/**
 * Every list states its cursor format (issue 40): the OpenAPI document gives each `cursor`
 * a pattern and an example, `next_cursor` the same pattern, and any value the pattern
 * matches is a place the list pages from (200, or 404 for a parent that does not exist),
 * never a 422; the test app checks every answer's `next_cursor` against its pattern too.
 */
interface Parameter {
  name: string;
  in: string;
  schema: { pattern?: string; examples?: string[] };
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
interface ErrorBody {
  detail?: { loc: string[]; msg: string }[];
}

let app: TestApp;
let strategic: TestKey;
let lists: { path: string; op: Operation; cursor: Parameter['schema'] }[];
let components: Record<string, object>;
beforeAll(async () => {
  app = await startTestApp('cursors');
  strategic = await createTestKey(app, { entitlement: 'strategic', accessLayer: 3 });
  const doc = await call<{
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, object> };
  }>(app.url, 'GET', '/openapi.json');
  components = doc.body.components.schemas;
  lists = Object.entries(doc.body.paths).flatMap(([path, ops]) => {
    const op = ops['get'];
    const cursor = op?.parameters?.find((p) => p.name === 'cursor' && p.in === 'query');
    return op && cursor ? [{ path, op, cursor: cursor.schema }] : [];
  });
});
afterAll(() => app.close());

/** The schema at `#/components/schemas/…` when `schema` is a reference. */
const resolve = (schema: object): Record<string, unknown> => {
  const ref = (schema as { $ref?: string }).$ref;
  return (ref ? components[ref.replace('#/components/schemas/', '')] : schema) as Record<
    string,
    unknown
  >;
};

/** The pattern of `next_cursor` in an operation's 200 answer. */
function nextCursorPattern(op: Operation): string | undefined {
  const body = resolve(op.responses['200'].content!['application/json'].schema);
  const payload = resolve((body['properties'] as Record<string, object>)['payload']);
  const next = (payload['properties'] as Record<string, Record<string, unknown>>)['next_cursor'];
  const variants = (next?.['anyOf'] ?? [next]) as { type?: string; pattern?: string }[];
  return variants.find((v) => v.type === 'string')?.pattern;
}

/** `path` with every path parameter a well-formed id the server never issued. */
const concrete = (path: string): string =>
  path.replace(/\{(\w+)\}/g, (_m, name: string) =>
    name === 'object_id' ? 'obj_01JG0000000000000000000000' : 'ses_01JG0000000000000000000000',
  );

const get = (path: string, key = app.adminKey) =>
  call<ErrorBody>(app.url, 'GET', path, { key }).then(async (res) =>
    res.status === 403 ? call<ErrorBody>(app.url, 'GET', path, { key: strategic.apiKey }) : res,
  );

describe('cursor formats in the document', () => {
  it('every list states its own cursor pattern, with an example, on cursor and next_cursor', () => {
    expect(lists.length).toBeGreaterThanOrEqual(25);
    for (const { path, op, cursor } of lists) {
      const where = `${op.operationId} (${path})`;
      expect([where, cursor.pattern]).not.toEqual([where, '^[A-Za-z0-9_-]+$']);
      expect([where, typeof cursor.pattern]).toEqual([where, 'string']);
      const example = cursor.examples?.[0] ?? '';
      expect([where, new RegExp(cursor.pattern!, 'u').test(example)]).toEqual([where, true]);
      expect([where, nextCursorPattern(op)]).toEqual([where, cursor.pattern]);
    }
  });

  it("every list pages from its document's example cursor (a place no item holds)", async () => {
    const refused: string[] = [];
    for (const { path, op, cursor } of lists) {
      const res = await get(`${concrete(path)}?cursor=${encodeURIComponent(cursor.examples![0])}`);
      if (![200, 404].includes(res.status)) {
        refused.push(
          `${op.operationId}: ${res.status} ${JSON.stringify(res.body.detail ?? res.body)}`,
        );
      }
    }
    expect(refused).toEqual([]);
  });

  it.each([
    ['a time between items', '/v1/admin/audit', '2026-02-30T00:00:00.000Z~aud_x'],
    [
      'a usage period and key never seen',
      '/v1/admin/usage',
      '2026-01-01T00:00:00.000Z~0123456789ab',
    ],
    ['a ledger bucket never written', '/v1/admin/requests', '2026-01-01T00:00:00.000Z~nope~7'],
    ['a slot far past the head', '/v1/external-events/history', 'all~999999999~3'],
    ['an inbox place', '/v1/external-actions?awaiting_me=true', 'all~5~0'],
    ['an id never issued', '/v1/admin/organizations', 'org_01JG0000000000000000000000'],
  ])('%s is a place to page from', async (_what, path, cursor) => {
    const sep = path.includes('?') ? '&' : '?';
    const res = await get(`${path}${sep}cursor=${encodeURIComponent(cursor)}`);
    expect([res.status, res.body]).toEqual([200, expect.anything()]);
  });

  it.each([
    [
      'an old opaque cursor',
      '/v1/admin/audit',
      'WyIyMDI2LTAxLTAxVDAwOjAwOjAwLjAwMFoiLCJhIl0',
      /should match pattern/,
    ],
    [
      'an id of another list',
      '/v1/admin/organizations',
      'prj_01JG0000000000000000000000',
      /pattern/,
    ],
    [
      'a chain of another filter',
      '/v1/external-actions?awaiting_me=true',
      'kind~5~0',
      /continues another filter's list \(this one walks `all`\)/,
    ],
  ])('%s is 422 on query.cursor, saying why', async (_what, path, cursor, why) => {
    const sep = path.includes('?') ? '&' : '?';
    const res = await get(`${path}${sep}cursor=${encodeURIComponent(cursor)}`);
    expect(res.status).toBe(422);
    expect(res.body.detail?.[0]?.loc).toEqual(['query', 'cursor']);
    expect(res.body.detail?.[0]?.msg).toMatch(why);
  });
});
