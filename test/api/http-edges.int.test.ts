import { connect } from 'node:net';
import { call } from '../helpers/http';
import { startTestApp, type TestApp } from '../helpers/test-app';

// Issue 40, item 6: the edges of HTTP itself (a method a path does not have, what Node's
// parser refuses before any route runs) answer in the one JSON error shape with an
// X-Request-Id, like everything else. Each case failed before its fix.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp('http_edges');
});
afterAll(() => app.close());

interface ErrorBody {
  ok: false;
  error: { code: string; message: string; request_id: string };
  detail: string;
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `head` (and then `tail`) on a fresh connection; what comes back before it closes. */
function raw(head: string, tail = ''): Promise<RawAnswer> {
  const { port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    let text = '';
    const done = () => {
      const [top, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = top.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    };
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(head);
      if (tail) socket.write(tail);
    });
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('end', done);
    // The server may close while a large request is still being written.
    socket.on('error', (error) => (text ? done() : reject(error)));
  });
}

/** The one error shape, with the status's code, and the request id also in the header. */
function expectEnvelope(answer: RawAnswer, status: number, code: string) {
  expect({ status: answer.status, type: answer.headers['content-type'] }).toEqual({
    status,
    type: 'application/json; charset=utf-8',
  });
  const body = JSON.parse(answer.body) as ErrorBody;
  expect(body).toMatchObject({ ok: false, error: { code } });
  expect(typeof body.detail).toBe('string');
  expect(answer.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
  expect(body.error.request_id).toBe(answer.headers['x-request-id']);
  return body;
}

describe('a method the path does not have is 405 with Allow, even where an id route would match', () => {
  it.each([
    ['/v1/external-events/ingest', 'POST'],
    ['/v1/external-events/ingest-batch', 'POST'],
    ['/v1/external-actions/dry-run', 'POST'],
    ['/v1/external-actions/propose', 'POST'],
  ])('GET %s: 405, Allow: %s (with a key or without)', async (path, allow) => {
    for (const key of [app.adminKey, undefined]) {
      const res = await call<ErrorBody>(app.url, 'GET', path, key ? { key } : {});
      expect({ status: res.status, allow: res.headers.get('allow') }).toEqual({
        status: 405,
        allow,
      });
      expect(res.body.error.code).toBe('method_not_allowed');
      expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
    }
    const head = await call(app.url, 'HEAD', path, { key: app.adminKey });
    expect({ status: head.status, allow: head.headers.get('allow') }).toEqual({
      status: 405,
      allow,
    });
  });

  it('an id that names nothing is still 404, and an id route still answers its own ids', async () => {
    const missing = await call<ErrorBody>(
      app.url,
      'GET',
      '/v1/external-events/evt_01HZZZZZZZZZZZZZZZZZZZZZZZ',
      { key: app.adminKey },
    );
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    const malformed = await call(app.url, 'GET', '/v1/external-events/not-an-id', {
      key: app.adminKey,
    });
    expect(malformed.status).toBe(404);
  });
});

describe('the OpenAPI document lists the 405 where a parameter can spell a path of its own', () => {
  it('GET /v1/external-events/{event_id} and /v1/external-actions/{action_id} list 405; a plain route does not', async () => {
    type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const doc = (await call<Doc>(app.url, 'GET', '/openapi.json')).body;
    const statuses = (path: string, method: string) =>
      Object.keys(doc.paths[path][method].responses);
    expect(statuses('/v1/external-events/{event_id}', 'get')).toContain('405');
    expect(statuses('/v1/external-actions/{action_id}', 'get')).toContain('405');
    expect(statuses('/v1/external-events/ingest', 'post')).not.toContain('405');
  });
});

describe("what Node's HTTP parser refuses is answered in the JSON envelope", () => {
  it('a 17 KB query string: 431', async () => {
    const answer = await raw(
      `GET /v1/runtime/status?q=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    const body = expectEnvelope(answer, 431, 'request_header_fields_too_large');
    expect(body.error.message).toMatch(/16384 bytes/);
  });

  it('a 64 KB header: 431', async () => {
    const answer = await raw(
      `GET /v1/runtime/status HTTP/1.1\r\nHost: x\r\nX-Padding: ${'b'.repeat(64 * 1024)}\r\n\r\n`,
    );
    expectEnvelope(answer, 431, 'request_header_fields_too_large');
  });

  it('a method no HTTP parser knows: 501 not_implemented', async () => {
    const answer = await raw('FROBNICATE /v1/runtime/status HTTP/1.1\r\nHost: x\r\n\r\n');
    const body = expectEnvelope(answer, 501, 'not_implemented');
    expect(body.error.message).toMatch(/method/i);
    // A request line that is not HTTP at all starts with something that is no method either.
    expectEnvelope(await raw('hello there\r\n\r\n'), 501, 'not_implemented');
  });

  it.each([
    ['an HTTP version that does not exist', 'GET /v1/runtime/status HTTP/7.3\r\nHost: x\r\n\r\n'],
    ['a header line without a colon', 'GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'],
    ['a control character in a header value', 'GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n'],
  ])('%s: 400 bad_request', async (_, request) => {
    expectEnvelope(await raw(request), 400, 'bad_request');
  });

  it('the connection still serves a good request next (a fresh one)', async () => {
    const answer = await raw('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(200);
  });
});
