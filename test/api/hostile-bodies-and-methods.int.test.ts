import { request, type IncomingMessage } from 'node:http';
import { bootstrapKeyId } from '../../src/auth/authenticator';
import { proposeUpdate } from '../helpers/actions';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Hostile bodies, methods and headers, each answered with the one status meant for it:
// canonical bodies before hashing, short 422s for huge bodies, the body limit, strict UTF-8,
// every application/*+json, OPTIONS and TRACE, the Idempotency-Key check. Each case failed
// before its fix.
let app: TestApp;
let worker: TestWorker;
let strategic: TestKey;
beforeAll(async () => {
  app = await startTestApp('hostile_bodies');
  worker = await startTestWorker(app.deps);
  strategic = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

interface Issue {
  loc: (string | number)[];
  type: string;
  ctx?: Record<string, unknown>;
}
type Refusal = { error: { code: string }; detail: Issue[] };

describe('hostile bodies', () => {
  it('a dossier is the same whatever the key order of its subject (was 500 the second time)', async () => {
    const actionId = await proposeUpdate(app, strategic, { patch: { status: 'published' } });
    const build = (subject: Record<string, string>) =>
      call<{ payload: { dossier_id: string; sha256: string; as_of: string } }>(
        app.url,
        'POST',
        '/v1/dossiers/core',
        { key: strategic.apiKey, rawBody: JSON.stringify({ subject }), headers: json },
      );
    const first = await build({ id: actionId, kind: 'action' });
    const second = await build({ kind: 'action', id: actionId });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.payload.dossier_id).toBe(first.body.payload.dossier_id);
    // `as_of` is when something happened, never the action's deadline a day ahead.
    expect(Date.parse(first.body.payload.as_of)).toBeLessThanOrEqual(Date.now());
    // The Markdown names the action so that grep finds it.
    const path = encodeURIComponent(`dossiers/${first.body.payload.dossier_id}/dossier.md`);
    const md = await call(app.url, 'GET', `/v1/artifacts/${path}/raw`, { key: strategic.apiKey });
    expect(md.status).toBe(200);
    expect(md.text).toContain(`\`${actionId}\``);
    expect(md.text).not.toContain(actionId.replace('_', '\\_'));
  });

  it('100,000 invalid fields: a short 422 listing 50 and counting the rest (was a 500)', async () => {
    const fields = Object.fromEntries(
      Array.from({ length: 100_000 }, (_, i) => [`f${i.toString(36)}`, 0]),
    );
    const body = JSON.stringify({ name: 'x', email: 'x@example.com', ...fields });
    expect(body.length).toBeLessThan(1024 * 1024);
    const res = await call<Refusal>(app.url, 'POST', '/v1/access/request', {
      rawBody: body,
      headers: json,
    });
    expect(res.status).toBe(422);
    expect(res.text.length).toBeLessThan(3 * body.length);
    expect(res.text.length).toBeLessThan(20_000);
    const { detail } = res.body;
    expect(detail).toHaveLength(51);
    expect(detail[50]).toMatchObject({ type: 'too_many_errors', ctx: { listed: 50 } });
    expect(Number(detail[50].ctx?.['total'])).toBeGreaterThan(100_000);
  });

  it('object refs by the ten thousand: 413 past the body limit, a short 422 within it', async () => {
    const task = (count: number) => ({
      title: 'many',
      object_refs: Array.from({ length: count }, (_, i) => `obj_${i}`),
    });
    // 130,000 refs are 1.6 MB of JSON: refused before parsing.
    const tooLarge = await call<Refusal>(app.url, 'POST', '/v1/worlds/tasks', {
      key: strategic.apiKey,
      body: task(130_000),
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('payload_too_large');
    // 80,000 fit in 1 MiB: the validator sees them all (too many, and none a valid id) and
    // answers a short 422 that lists 50 problems and counts the rest.
    const tooMany = await call<Refusal>(app.url, 'POST', '/v1/worlds/tasks', {
      key: strategic.apiKey,
      body: task(80_000),
    });
    expect(tooMany.status).toBe(422);
    const { detail } = tooMany.body;
    expect(detail).toHaveLength(51);
    expect(detail[0].loc).toEqual(['body', 'object_refs']);
    expect(detail[50]).toMatchObject({ type: 'too_many_errors', ctx: { listed: 50 } });
    expect(Number(detail[50].ctx?.['total'])).toBeGreaterThan(80_000);
    expect(tooMany.text.length).toBeLessThan(20_000);
  });

  it('invalid UTF-8 in a JSON body is 422 json_invalid, not stored as U+FFFD', async () => {
    const send = (bytes: Buffer) =>
      fetch(`${app.url}/v1/worlds/tasks`, {
        method: 'POST',
        headers: { 'X-API-Key': strategic.apiKey, 'Content-Type': 'application/json' },
        body: bytes,
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as Refusal }));
    const bad = await send(
      Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
    );
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ type: 'json_invalid', loc: ['body'] });
    // A real U+FFFD, sent as its three UTF-8 bytes, is text like any other.
    const good = await send(Buffer.from('{"title":"\uFFFD ok"}', 'utf8'));
    expect(good.status).toBe(201);
  });

  it('an application/problem+json body is parsed as JSON', async () => {
    const res = await call<Refusal>(app.url, 'POST', '/v1/access/request', {
      rawBody: JSON.stringify({ name: 'Ada', intended_use: 'evaluation' }),
      headers: { 'Content-Type': 'application/problem+json; charset=utf-8' },
    });
    // Parsed: the one problem is the missing e-mail, not "a valid dictionary".
    expect(res.status).toBe(422);
    expect(res.body.detail.map((issue) => issue.loc)).toEqual([['body', 'email']]);
  });

  it("a quota policy on the operators' own organization or the bootstrap key is 409", async () => {
    const bootstrap = (await app.deps.repos.apiKeys.findById(bootstrapKeyId(app.adminKey)))!;
    const limits = { requests_per_minute: 6, daily_quota: 2134 };
    for (const scope of [
      { organization_id: bootstrap.organization_id },
      { key_id: bootstrap._id },
    ]) {
      const res = await call(app.url, 'POST', '/v1/admin/policies/create', {
        key: app.adminKey,
        body: { name: `lockout ${Object.keys(scope)[0]}`, scope, ...limits },
      });
      expect(res.status).toBe(409);
      expect(res.text).toMatch(/throttle the control plane/);
    }
  });
});

describe('hostile methods, headers and formats', () => {
  it('OPTIONS: 204 with the true Allow on a known path, 404 elsewhere', async () => {
    const known = await call(app.url, 'OPTIONS', '/v1/external-actions/propose');
    expect(known.status).toBe(204);
    expect(known.text).toBe('');
    expect(known.headers.get('allow')).toBe('POST, OPTIONS');
    expect(known.headers.get('access-control-allow-origin')).toBeNull();
    expect((await call(app.url, 'OPTIONS', '/v1/nothing-here')).status).toBe(404);
  });

  it("TRACE names exactly the path's methods in Allow", async () => {
    // fetch refuses TRACE: a plain request.
    const trace = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(`${app.url}/v1/external-actions/propose`, {
        method: 'TRACE',
        headers: { 'X-API-Key': app.adminKey },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res);
      });
      req.on('error', reject);
      req.end();
    });
    expect(trace.statusCode).toBe(405);
    expect(trace.headers.allow).toBe('POST');
    const param = await call(app.url, 'DELETE', '/v1/external-actions/propose', {
      key: app.adminKey,
    });
    expect(param.status).toBe(405);
    expect(param.headers.get('allow')).toBe('POST');
  });

  it('Idempotency-Key: the check, the OpenAPI pattern and the message agree', async () => {
    const refused = await call<Refusal>(app.url, 'POST', '/v1/worlds/tasks', {
      key: strategic.apiKey,
      body: { title: 'idem' },
      headers: { 'Idempotency-Key': 'a b' },
    });
    expect(refused.status).toBe(422);
    const doc = await call<{
      paths: Record<
        string,
        { post: { parameters: { name: string; schema: { pattern?: string } }[] } }
      >;
    }>(app.url, 'GET', '/openapi.json');
    const header = doc.body.paths['/v1/worlds/tasks'].post.parameters.find(
      (p) => p.name === 'Idempotency-Key',
    );
    const pattern = new RegExp(header!.schema.pattern!);
    expect(pattern.test('a b')).toBe(false);
    expect(pattern.test('a-b_c.1~!')).toBe(true);
  });

  it('the membrane renders the current witness when given only a format', async () => {
    const res = await call<{ payload: { body: string } }>(
      app.url,
      'POST',
      '/v1/membrane/render/world',
      { key: strategic.apiKey, body: { format: 'markdown' } },
    );
    expect(res.status).toBe(200);
    expect(res.body.payload.body).toMatch(/^# world witness/);
  });
});

const json = { 'Content-Type': 'application/json' };
