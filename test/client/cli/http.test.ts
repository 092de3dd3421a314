import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildClientPackage, runGr } from '../../helpers/cli';

// `gr` pointed at something that is not the service: nothing listening, no such host, a
// server that never answers, another program's web page. Each says what happened in words
// (never "fetch failed" or a JSON parse error), exit 1, as a line and as --json.

let home: string;
let page: Server;
let pageUrl: string;

beforeAll(async () => {
  buildClientPackage();
  home = mkdtempSync(join(tmpdir(), 'gr-http-'));
  // Another program's web UI on the port gr was given: HTML, and a 404 page for the rest.
  page = createServer((req, res) => {
    if (req.url?.startsWith('/v1/substrates')) return; // never answers
    const found = req.url?.startsWith('/v1/external-actions?') ?? false;
    res.writeHead(found ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><title>${found ? 'Temporal' : 'Page not found'}</title></head><body><p>hi</p></body></html>`,
    );
  });
  pageUrl = await listening(page);
}, 60_000);
afterAll(async () => {
  page.closeAllConnections();
  await new Promise<void>((resolve) => page.close(() => resolve()));
});

const listening = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const gr = (url: string, args: string[], env: Record<string, string> = {}) =>
  runGr(args, { GR_URL: url, GR_API_KEY: 'grk_any', XDG_CONFIG_HOME: home, HOME: home, ...env });

it('says the connection was refused when nothing listens', async () => {
  const closed = createServer();
  const url = await listening(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const refused = await gr(url, ['actions', 'list']);
  expect(refused).toEqual({
    code: 1,
    stdout: '',
    stderr: `gr: cannot reach ${url}/: connection refused\n`,
  });
  const json = await gr(url, ['actions', 'list', '--json']);
  expect(JSON.parse(json.stderr)).toEqual({
    error: {
      code: 'unreachable',
      message: `cannot reach ${url}/: connection refused`,
      url: `${url}/`,
    },
  });
});

it('says there is no such host', async () => {
  const unknown = await gr('http://nowhere.invalid', ['keys', 'whoami']);
  expect(unknown.code).toBe(1);
  // Without a resolver that answers, the lookup fails rather than finding no host.
  expect(unknown.stderr).toMatch(
    /^gr: cannot reach http:\/\/nowhere\.invalid\/: (no such host|the host name could not be looked up \(DNS did not answer\))\n$/,
  );
});

it('gives up on a server that never answers, after GR_REQUEST_TIMEOUT', async () => {
  const silent = await gr(pageUrl, ['deployments', 'list'], { GR_REQUEST_TIMEOUT: '0.5' });
  expect(silent).toMatchObject({
    code: 1,
    stderr: `gr: cannot reach ${pageUrl}/: no answer within 0.5 s (GR_REQUEST_TIMEOUT)\n`,
  });
  const bad = await gr(pageUrl, ['deployments', 'list'], { GR_REQUEST_TIMEOUT: 'soon' });
  expect(bad).toMatchObject({
    code: 2,
    stderr: 'gr: GR_REQUEST_TIMEOUT must be a positive number of seconds, not soon\n',
  });
});

it('says what answered when it is not the service: an HTML page, a 404 page', async () => {
  const html = await gr(pageUrl, ['actions', 'list']);
  expect(html).toEqual({
    code: 1,
    stdout: '',
    stderr: `gr: ${pageUrl}/v1/external-actions?limit=50 answered HTTP 200 (text/html), not the service's JSON: "Temporal"; is ${pageUrl} the service's URL?\n`,
  });
  const missing = await gr(pageUrl, ['actions', 'show', 'act_01JZZZZZZZZZZZZZZZZZZZZZZZ']);
  expect(missing).toEqual({
    code: 1,
    stdout: '',
    stderr: `gr: ${pageUrl}/v1/external-actions/act_01JZZZZZZZZZZZZZZZZZZZZZZZ answered HTTP 404 (text/html), not the service's JSON: "Page not found"\n`,
  });
  const json = await gr(pageUrl, ['actions', 'show', 'act_01JZZZZZZZZZZZZZZZZZZZZZZZ', '--json']);
  expect(JSON.parse(json.stderr)).toMatchObject({ error: { status: 404, code: 'http_404' } });
});
