import { notImplemented, isPlanned } from '../../src/api/routes/common';
import { apiRoutes } from '../../src/api/routes';
import type { RouteDefinition } from '../../src/api/route';
import { request } from 'node:http';
import { connect } from 'node:net';
import { storedIn } from '../helpers/collections';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

interface ErrorBody {
  ok: false;
  error: { code: string; message: string; request_id: string };
  detail: unknown;
}
type Issue = { loc: (string | number)[]; msg: string; type: string };

let app: TestApp;
let strategic: TestKey;

beforeAll(async () => {
  app = await startTestApp('conventions');
  strategic = await createTestKey(app, { entitlement: 'strategic', accessLayer: 3 });
});
afterAll(() => app.close());

const issuesOf = (body: ErrorBody): Issue[] => body.detail as Issue[];

describe('error shape and request ids', () => {
  it('answers unknown routes with a 404 in the error shape and an X-Request-Id', async () => {
    const res = await call<ErrorBody>(app.url, 'GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(typeof res.body.detail).toBe('string');
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('echoes a well-formed incoming X-Request-Id and replaces a malformed one', async () => {
    const echoed = await call(app.url, 'GET', '/healthz', {
      headers: { 'X-Request-Id': 'client-abc.123' },
    });
    expect(echoed.headers.get('x-request-id')).toBe('client-abc.123');
    const replaced = await call(app.url, 'GET', '/healthz', {
      headers: { 'X-Request-Id': 'bad id with spaces' },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await call<ErrorBody>(app.url, 'DELETE', '/v1/sessions', { key: strategic.apiKey });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('POST');
    expect(res.body.error.code).toBe('method_not_allowed');
  });
});

describe('methods no route uses', () => {
  /** fetch refuses TRACE; a plain request sends any method. */
  const send = (method: string, path: string) =>
    new Promise<{ status: number; allow: string | undefined; body: string }>((resolve, reject) => {
      const req = request(`${app.url}${path}`, { method }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, allow: res.headers['allow'], body }),
        );
      });
      req.on('error', reject);
      req.end();
    });

  it.each(['TRACE', 'PROPFIND', 'PURGE'])(
    '%s on a known path is 405 with Allow, on an unknown one 404',
    async (method) => {
      const known = await send(method, '/v1/sessions');
      expect(known.status).toBe(405);
      expect(known.allow?.split(', ')).toEqual(['POST']);
      expect(JSON.parse(known.body)).toMatchObject({ error: { code: 'method_not_allowed' } });
      const unknown = await send(method, '/v1/no-such-thing');
      expect(unknown.status).toBe(404);
      expect(JSON.parse(unknown.body)).toMatchObject({ error: { code: 'not_found' } });
    },
  );
});

describe('malformed input', () => {
  const body = { name: 'A', email: 'someone@example.test', role: 'member' };

  it('malformed JSON is 422 json_invalid', async () => {
    const res = await call<ErrorBody>(app.url, 'POST', '/v1/admin/principals/create', {
      key: app.adminKey,
      rawBody: '{"name": "A",',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(issuesOf(res.body)[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });

  it('a body nested deeper than 64 levels is 422 too_deep, before anything walks it', async () => {
    // Written by hand: serializing thousands of levels overflows here too.
    const nested = (depth: number): string =>
      `${'{"deeper":'.repeat(depth)}"bottom"${'}'.repeat(depth)}`;
    const raw = (key: string, path: string, json: string, headers: Record<string, string> = {}) =>
      call<ErrorBody>(app.url, 'POST', path, {
        key,
        rawBody: json,
        headers: { 'Content-Type': 'application/json', ...headers },
      });
    // A: a session command's arguments (they overflowed the stack at ~3,200 levels).
    const session = await call<{ payload: { session_id: string } }>(
      app.url,
      'POST',
      '/v1/sessions',
      { key: strategic.apiKey, body: {} },
    );
    const stepPath = `/v1/sessions/${session.body.payload.session_id}/step`;
    const step = await raw(
      strategic.apiKey,
      stepPath,
      `{"input_packet":{"command":"recall","args":${nested(5_000)}}}`,
    );
    expect(step.status).toBe(422);
    expect(issuesOf(step.body)[0]).toMatchObject({ type: 'too_deep', ctx: { max_depth: 64 } });
    // B: an event payload with an Idempotency-Key (the body used to be hashed first).
    const ingest = await raw(
      strategic.apiKey,
      '/v1/external-events/ingest',
      `{"source_family":"fuzz","source_event_id":"deep-1","event_type":"deep","occurred_at":"2026-01-01T00:00:00.000Z","payload":${nested(10_000)}}`,
      { 'Idempotency-Key': 'deep-payload-1' },
    );
    expect(ingest.status).toBe(422);
    expect(issuesOf(ingest.body)[0]).toMatchObject({ type: 'too_deep' });
    // 64 levels in all are fine (the body, `input_packet`, then 62 from `args` down); 65 are not.
    const ok = await raw(
      strategic.apiKey,
      stepPath,
      `{"input_packet":{"command":"recall","args":${nested(62)}}}`,
    );
    expect(JSON.stringify(ok.body)).not.toContain('too_deep');
    const over = await raw(
      strategic.apiKey,
      stepPath,
      `{"input_packet":{"command":"recall","args":${nested(63)}}}`,
    );
    expect(issuesOf(over.body)[0]).toMatchObject({ type: 'too_deep' });
  });

  it('a missing body is 422 missing', async () => {
    const res = await call<ErrorBody>(app.url, 'POST', '/v1/admin/principals/create', {
      key: app.adminKey,
    });
    expect(res.status).toBe(422);
    expect(issuesOf(res.body)).toEqual([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  });

  it('wrong types, missing and unknown fields are listed together, FastAPI style', async () => {
    const res = await call<ErrorBody>(app.url, 'POST', '/v1/admin/principals/create', {
      key: app.adminKey,
      body: { name: 42, role: 'member', surprise: true },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    const issues = issuesOf(res.body);
    expect(issues).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'name'], msg: 'Input should be a valid string', type: 'string_type' },
        { loc: ['body', 'email'], msg: 'Field required', type: 'missing' },
        {
          loc: ['body', 'surprise'],
          msg: 'Extra inputs are not permitted',
          type: 'extra_forbidden',
        },
      ]),
    );
  });

  it('a body that is not an object is 422', async () => {
    const res = await call<ErrorBody>(app.url, 'POST', '/v1/admin/principals/create', {
      key: app.adminKey,
      body: [1, 2],
    });
    expect(res.status).toBe(422);
    expect(issuesOf(res.body)[0]).toMatchObject({ loc: ['body'], type: 'model_attributes_type' });
  });

  it('a non-JSON media type is 415', async () => {
    const res = await call<ErrorBody>(app.url, 'POST', '/v1/admin/principals/create', {
      key: app.adminKey,
      rawBody: 'name=A',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });

  it('an unknown Content-Encoding is 415 naming it (issue 16 J)', async () => {
    const res = await call<ErrorBody>(app.url, 'POST', '/v1/admin/principals/create', {
      key: app.adminKey,
      rawBody: JSON.stringify(body),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'zstd-frobnicated' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error).toMatchObject({ code: 'unsupported_media_type' });
    expect(res.body.error.message).toContain('zstd-frobnicated');
  });

  it('an empty Idempotency-Key is 422 naming the header (issue 16 J)', async () => {
    const res = await call<ErrorBody>(app.url, 'POST', '/v1/sessions', {
      key: strategic.apiKey,
      body: {},
      headers: { 'Idempotency-Key': '' },
    });
    expect(res.status).toBe(422);
    expect(issuesOf(res.body)[0]).toMatchObject({ loc: ['header', 'idempotency-key'] });
  });

  it('a body over 1 MiB is 413, and nothing is written', async () => {
    const big = { ...body, name: 'x'.repeat(1024 * 1024 + 10) };
    const res = await call<ErrorBody>(app.url, 'POST', '/v1/admin/principals/create', {
      key: app.adminKey,
      body: big,
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
    expect(await app.deps.repos.principals.findByEmail(body.email)).toBeNull();
  });

  it.each([
    ['limit=0', 'greater_than_equal'],
    ['limit=501', 'less_than_equal'],
    ['limit=abc', 'int_parsing'],
    // Issue 16 H: coercion must not read these as numbers.
    ['limit=0x10', 'int_parsing'],
    ['limit=0b11', 'int_parsing'],
    ['limit=1e1', 'int_parsing'],
    ['limit=4.99', 'int_parsing'],
    ['limit=%2010', 'int_parsing'],
  ])('bad query %s is 422 %s', async (query, type) => {
    const res = await call<ErrorBody>(app.url, 'GET', `/v1/external-actions/history?${query}`, {
      key: strategic.apiKey,
    });
    expect(res.status).toBe(422);
    expect(issuesOf(res.body)[0]).toMatchObject({ loc: ['query', 'limit'], type });
  });

  // Issue 10, risk 9: a path id the server never issued is unknown (404), not invalid (422).
  it.each([
    // C: a cursor holding ("x", "y") was a 500 ("Invalid time value") on usage.
    ['/v1/admin/usage', 'x~y'],
    // I: forged (at, id) cursors: a time not as the service writes them, an id with a path.
    ['/v1/admin/audit', 'not-a-date~aud_x'],
    ['/v1/admin/audit', '2026-01-01T00:00:00Z~aud_x'],
    ['/v1/admin/audit', '2026-01-01T00:00:00.000Z~aud x/../'],
    ['/v1/admin/service-events', '2026-01-01T00:00:00.000Z'],
    ['/v1/admin/requests', 'not-a-date~~0'],
    ['/v1/admin/requests', '2026-01-01T00:00:00.000Z~~-1'],
    ['/v1/substrates/scaffolds', '../x'],
  ])('a forged cursor on %s (%s) is 422 on query.cursor', async (path, cursor) => {
    const res = await call<ErrorBody>(
      app.url,
      'GET',
      `${path}?cursor=${encodeURIComponent(cursor)}`,
      { key: app.adminKey },
    );
    expect(res.status).toBe(422);
    expect(issuesOf(res.body)[0]).toMatchObject({ loc: ['query', 'cursor'] });
  });

  it('a malformed path id is 404 naming the parameter', async () => {
    for (const path of ['/v1/sessions/not-a-session-id', '/v1/worlds/objects/obj_nope']) {
      const res = await call<ErrorBody>(app.url, 'GET', path, { key: strategic.apiKey });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'not_found' });
    }
    const res = await call<ErrorBody>(app.url, 'GET', '/v1/sessions/not-a-session-id', {
      key: strategic.apiKey,
    });
    expect(res.body.error).toMatchObject({ parameter: 'session_id' });
    expect(res.body.error.message).toContain('not-a-session-id');
  });

  it('validates a body before its handler runs', async () => {
    const invalid = await call<ErrorBody>(
      app.url,
      'POST',
      '/v1/sessions/ses_01JABCDEFGHJKMNPQRSTVWXYZ0/step',
      {
        key: strategic.apiKey,
        body: { input_packet: {} },
      },
    );
    expect(invalid.status).toBe(422);
    expect(issuesOf(invalid.body)[0]).toMatchObject({
      loc: ['body', 'input_packet', 'command'],
      type: 'missing',
    });
    const invalidProofs = await call<ErrorBody>(app.url, 'POST', '/v1/proofs/checks', {
      key: strategic.apiKey,
      body: { checks: ['everything'] },
    });
    expect(invalidProofs.status).toBe(422);
    expect(issuesOf(invalidProofs.body)[0]).toMatchObject({
      loc: ['body', 'checks', 0],
      type: 'enum',
    });
  });
});

describe('routes not built yet', () => {
  it('answer 501 naming the capability and the issue that owns it; none is left', async () => {
    const handler = notImplemented('Teleportation', 99);
    expect(isPlanned({ handler } as unknown as RouteDefinition)).toBe(true);
    await expect(handler()).rejects.toMatchObject({
      kind: 'not_implemented',
      message: 'Teleportation is not implemented yet (tracked by issue #99)',
    });
    // Every seed route is built (docs/roadmap.md).
    expect(apiRoutes(() => []).filter(isPlanned)).toEqual([]);
  });
});

describe('the request ledger', () => {
  it('records the client address of a request whose body was cut off (issue 16 E)', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const requestId = `aborted-${Date.now()}`;
    const { port } = new URL(app.url);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          [
            'POST /v1/external-events/ingest HTTP/1.1',
            'Host: 127.0.0.1',
            `x-api-key: ${strategic.apiKey}`,
            `x-request-id: ${requestId}`,
            'Content-Type: application/json',
            'Content-Length: 1000',
            '',
            '{"source_f',
          ].join('\r\n'),
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
    });
    let row: Awaited<ReturnType<typeof app.deps.repos.requestLedger.findRow>>;
    for (let i = 0; i < 50 && !row; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await app.deps.ledger.flush();
      row = await app.deps.repos.requestLedger.findRow(requestId, since);
    }
    expect(row).toMatchObject({ route: '/v1/external-events/ingest' });
    expect(row!.client_ip).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  });

  it('records answered requests with key id, family and status, and never the key', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const res = await call(app.url, 'GET', '/v1/runtime/status', { key: strategic.apiKey });
    expect(res.status).toBe(200);
    await app.deps.ledger.flush();
    const row = await app.deps.repos.requestLedger.findRow(res.headers.get('x-request-id')!, since);
    expect(row).toMatchObject({
      method: 'GET',
      route: '/v1/runtime/status',
      family: 'runtime_basic',
      status: 200,
      key_id: strategic.keyId,
    });
    const everything = JSON.stringify(await storedIn(app.deps.db).requestLedger.find().toArray());
    expect(everything).not.toContain(strategic.apiKey);
    expect(everything).not.toContain(app.adminKey);
  });
});
