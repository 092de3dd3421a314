import { createHash } from 'node:crypto';
import { seedObject } from '../helpers/actions';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

// The membrane (docs/membrane.md): documents for people outside, never carrying a secret, an API
// key or an e-mail address, whatever shape the payload takes.
interface Rendered {
  format: string;
  content_type: string;
  body: string;
  sha256: string;
  redactions: { path: string; reason: string }[];
}

let app: TestApp;
let institutional: TestKey;
let sandbox: TestKey;
beforeAll(async () => {
  app = await startTestApp('membrane');
  [institutional, sandbox] = await Promise.all([
    createTestKey(app, { entitlement: 'institutional', accessLayer: 1 }),
    createTestKey(app, { entitlement: 'sandbox', accessLayer: 0 }),
  ]);
});
afterAll(() => app.close());

const render = (kind: string, body: Record<string, unknown>, key = institutional) =>
  call<{ payload: Rendered }>(app.url, 'POST', `/v1/membrane/render/${kind}`, {
    key: key.apiKey,
    body,
  });

const API_KEY = 'grk_abcdef012345_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8Ba7';
const hostile = {
  title: 'quarterly <script>alert(1)</script> report',
  owner: 'ada@example.com',
  note: `call me at bob.smith+ops@corp.example.org or use ${API_KEY}`,
  link: '[click](javascript:alert(1)) <img src=x onerror=alert(2)>',
  'carol@example.net': 'an address as a key',
  credentials: { password: 'hunter2', nested: [{ api_token: 'tok-123' }, { clientSecret: 's3' }] },
  rows: [
    ['plain', { deeper: { Authorization: 'Bearer abc', keep: 'kept | pipe' } }],
    `${API_KEY} twice ${API_KEY}`,
  ],
};
const SECRETS = [
  'ada@example.com',
  'bob.smith+ops@corp.example.org',
  'carol@example.net',
  API_KEY,
  'hunter2',
  'tok-123',
  's3"',
  'Bearer abc',
];

describe('membrane renderers', () => {
  it.each(['json', 'markdown', 'html'])(
    'let no secret, key or address cross, and say where each was (%s)',
    async (format) => {
      const res = await render('evidence', { format, payload: hostile });
      expect(res.status).toBe(200);
      const out = res.body.payload;
      for (const secret of SECRETS) expect(out.body).not.toContain(secret);
      expect(out.sha256).toBe(createHash('sha256').update(out.body).digest('hex'));
      const reasons = out.redactions.map((r) => `${r.reason} ${r.path}`);
      expect(reasons).toEqual(
        expect.arrayContaining([
          'email $.owner',
          'email $.note',
          'api_key $.note',
          'sensitive_field $.credentials.password',
          'sensitive_field $.credentials.nested[0].api_token',
          'sensitive_field $.credentials.nested[1].clientSecret',
          'sensitive_field $.rows[0][1].deeper.Authorization',
          'sensitive_key $.<key>',
          'api_key $.rows[1]',
        ]),
      );
      expect(out.body).toContain('kept');
      // The same input renders the same bytes.
      expect((await render('evidence', { format, payload: hostile })).body.payload.sha256).toBe(
        out.sha256,
      );
    },
  );

  it('render HTML self-contained and escaped: no script, no live markup, no outside resource', async () => {
    const html = (await render('evidence', { format: 'html', payload: hostile })).body.payload;
    expect(html.content_type).toBe('text/html; charset=utf-8');
    expect(html.body).toMatch(/^<!doctype html>/);
    expect(html.body).toContain("default-src 'none'");
    expect(html.body.toLowerCase()).not.toContain('<script');
    expect(html.body).not.toMatch(/<img|<a[\s>]|href=/i);
    expect(html.body).toContain('&lt;script&gt;');
  });

  it('escape Markdown control characters in values', async () => {
    const md = (await render('evidence', { format: 'markdown', payload: hostile })).body.payload;
    expect(md.body).not.toContain('[click](javascript');
    expect(md.body).toContain('\\[click\\]');
    expect(md.body).toContain('kept \\| pipe');
  });

  it('draw the world as SVG from the store, and refuse SVG elsewhere', async () => {
    const named = await seedObject(app, { name: 'Ops <team> & "friends"', kind: 'team' });
    const res = await render('world', { format: 'svg', subject: {} }, sandbox);
    expect(res.status).toBe(200);
    const svg = res.body.payload;
    expect(svg.content_type).toBe('image/svg+xml');
    expect(svg.body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg.body).toContain('Ops &lt;team&gt; &amp; &quot;friends&quot;');
    expect(svg.body).toContain(named._id);
    expect(svg.body.toLowerCase()).not.toContain('<script');
    expect((await render('runtime', { format: 'svg', subject: {} })).body.payload.body).toContain(
      'valence',
    );
    // The other renderers' body offers no svg (issue 40: the document says so too).
    const refused = await render('evidence', { format: 'svg', payload: {} });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain("body.format: Input should be 'json', 'markdown' or 'html'");
  });

  it('compute a subject (the current one when neither is given), never both', async () => {
    const runtime = await render('runtime', { format: 'markdown', subject: {} });
    expect(runtime.status).toBe(200);
    expect(runtime.body.payload.body).toMatch(/^# runtime witness/);
    // Ids and names stay greppable: in code spans, unescaped.
    expect(runtime.body.payload.body).toContain('`self_report`');
    const current = await render('runtime', { format: 'markdown' });
    expect(current.status).toBe(200);
    expect(current.body.payload.body).toMatch(/^# runtime witness/);
    expect((await render('runtime', { format: 'json', subject: {}, payload: {} })).status).toBe(
      422,
    );
    const missing = await render('commitment', { format: 'json', subject: {} });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('context_id');
    const unknown = await render('commitment', { format: 'json', subject: { context_id: 'nope' } });
    expect(unknown.status).toBe(404);
  });

  it.each(['aboutness', 'assay', 'commitment', 'evidence', 'repair', 'runtime', 'world'])(
    'render a payload as given (%s)',
    async (kind) => {
      const res = await render(kind, { format: 'json', payload: { kind, n: 1 } });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body.payload.body)).toEqual({ kind, n: 1 });
    },
  );

  it('follow the families: the world for sandbox keys, witnesses for institutional ones', async () => {
    expect((await render('world', { format: 'json', subject: {} }, sandbox)).status).toBe(200);
    expect((await render('aboutness', { format: 'json', payload: {} }, sandbox)).status).toBe(403);
  });
});
