import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { choice, pathParams } from '../../lib/schema';
import { defineRoute, tagged, type RouteDefinition } from '../route';

/** The console's static files: `console/` at the repository (and image) root. */
function consoleDir(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'console'))) {
      return join(dir, 'console');
    }
  }
  throw new Error('console/ not found above the api');
}

const JS = 'application/javascript; charset=utf-8';

/**
 * `@simplewebauthn/browser`'s one-file bundle (the WebAuthn encoding, feature checks and
 * error names for `navigator.credentials`), served from the installed package so its
 * version is the lock file's. Its package exports only its entry, hence the walk from it.
 */
const webauthnBundle = (): string =>
  join(dirname(require.resolve('@simplewebauthn/browser')), '..', 'dist/bundle/index.umd.min.js');

/**
 * Every file the page loads, by name: the entry module, the modules it imports (one per
 * view or concern, docs/console.md), the stylesheet and the icon. A new module goes here.
 */
const CONSOLE_ASSETS = {
  'console.js': JS,
  'api.js': JS,
  'names.js': JS,
  'dom.js': JS,
  'dialog.js': JS,
  'ledger.js': JS,
  'lists.js': JS,
  'action.js': JS,
  'decide.js': JS,
  'keys.js': JS,
  'passkeys.js': JS,
  'simplewebauthn-browser.js': JS,
  'console.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
} as const;

/**
 * The page may run only its own script and talk only to this origin: an API key pasted
 * into it can leave only as the X-API-Key of requests to this api.
 */
const CONSOLE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

/** The approvals console (docs/console.md): static files, the API does the rest. */
export function consoleRoutes(): RouteDefinition[] {
  const dir = consoleDir();
  const files: Record<string, string> = { 'simplewebauthn-browser.js': webauthnBundle() };
  const fileOf = (asset: string) => files[asset] ?? join(dir, asset);
  return tagged('system', [
    defineRoute({
      operationId: 'console.page',
      method: 'GET',
      path: '/console',
      family: 'public',
      summary: 'approvals console',
      description:
        "The approvals console: an inbox of what awaits the caller, action details with the plan diff, approve/reject/execute (signed with a passkey where the rule asks for it), history, the caller's approver keys (register a passkey, revoke) and Temporal UI links. Static files; the API key stays in the browser tab.",
      responses: { 200: { description: 'HTML page.' } },
      handler: async () => ({
        raw: {
          body: await readFile(join(dir, 'index.html')),
          contentType: 'text/html; charset=utf-8',
        },
        headers: CONSOLE_HEADERS,
      }),
    }),
    defineRoute({
      operationId: 'console.asset',
      method: 'GET',
      path: '/console/assets/{asset}',
      family: 'public',
      summary: 'approvals console asset',
      hidden: true,
      request: {
        params: pathParams({ asset: choice(Object.keys(CONSOLE_ASSETS), 'Asset file name.') }),
      },
      responses: { 200: { description: 'Static asset.' } },
      handler: async (req) => {
        const asset = req.params.asset as keyof typeof CONSOLE_ASSETS;
        return {
          raw: { body: await readFile(fileOf(asset)), contentType: CONSOLE_ASSETS[asset] },
          headers: CONSOLE_HEADERS,
        };
      },
    }),
  ]);
}
