import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { createTestKey, type TestKey } from './helpers/keys';
import { startTestApp, type TestApp } from './helpers/test-app';

// A newcomer's first hour: a fresh clone of this checkout's HEAD (what is committed, as a
// newcomer gets it), the install and build `npm start` runs (scripts/ensure-deps.sh), then
// the README's `npx gr` commands. `gr` must be this repository's own command: npx falls
// back to a registry package of the same name when no local bin is linked.

const ROOT = resolve(__dirname, '..');
/** What is cloned; a variable so that a broken commit can be cloned instead, by hand. */
const CLONE_SOURCE = ROOT;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, never throwing: the test reads the exit code and output. */
function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs: number },
): Promise<Run> {
  return new Promise((done) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        // The Node running the tests (24) first on PATH, so `npx`'s `#!/usr/bin/env node`
        // and everything the scripts start run on it.
        env: {
          ...process.env,
          PATH: `${dirname(process.execPath)}${delimiter}${process.env['PATH'] ?? ''}`,
          ...options.env,
        },
        timeout: options.timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

const describeRun = (what: string, result: Run): string =>
  `${what} exited ${result.code}:\n${result.stdout.slice(-5000)}\n${result.stderr.slice(-5000)}`;

/** `bin` names of every package of the workspace (the root and its `workspaces` folders). */
function workspaceBins(root: string): Map<string, string> {
  const bins = new Map<string, string>();
  const read = (dir: string) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      bin?: string | Record<string, string>;
      workspaces?: string[];
    };
    const entries =
      typeof manifest.bin === 'string'
        ? { [manifest.name.replace(/^@[^/]+\//, '')]: manifest.bin }
        : (manifest.bin ?? {});
    for (const [name, file] of Object.entries(entries)) bins.set(name, join(dir, file));
    return manifest.workspaces ?? [];
  };
  for (const pattern of read(root)) {
    // Only `folder/*` patterns are used here.
    expect(pattern).toMatch(/^[^*]+\/\*$/);
    const parent = join(root, pattern.slice(0, -2));
    for (const entry of readdirSync(parent, { withFileTypes: true }))
      if (entry.isDirectory()) read(join(parent, entry.name));
  }
  return bins;
}

/** The package names the README's commands hand to `npx` (`npx [flags] <name> …`). */
function npxNames(markdown: string): string[] {
  const names = new Set<string>();
  for (const match of markdown.matchAll(/(?:^|[\s;&|(`])npx\s+(?:-\S+\s+)*([^\s`;&|)]+)/g))
    names.add(match[1] ?? '');
  return [...names];
}

let clone: string;
let app: TestApp;
let newcomer: TestKey;

beforeAll(async () => {
  clone = join(mkdtempSync(join(tmpdir(), 'gr-fresh-clone-')), 'repo');
  const cloned = await run('git', ['clone', '--quiet', '--no-hardlinks', CLONE_SOURCE, clone], {
    cwd: ROOT,
    timeoutMs: 120_000,
  });
  if (cloned.code !== 0) throw new Error(describeRun('git clone', cloned));
  // npm's own cache, trusted without asking the registry again for what it holds: the
  // install is the same one, only without a round trip per package.
  const installed = await run('bash', ['scripts/ensure-deps.sh'], {
    cwd: clone,
    env: { npm_config_prefer_offline: 'true' },
    timeoutMs: 540_000,
  });
  if (installed.code !== 0) throw new Error(describeRun('scripts/ensure-deps.sh', installed));
  app = await startTestApp('fresh-clone');
  newcomer = await createTestKey(app, {
    entitlement: 'strategic',
    accessLayer: 2,
    name: 'Newcomer',
  });
}, 600_000);

afterAll(async () => {
  await app?.close();
  if (clone) rmSync(dirname(clone), { recursive: true, force: true });
}, 120_000);

it("every `npx` command of the README is a bin of this repository's workspace, linked by the install", () => {
  const names = npxNames(readFileSync(join(clone, 'README.md'), 'utf8'));
  expect(names).toContain('gr');
  const bins = workspaceBins(clone);
  for (const name of names) {
    expect([name, bins.has(name)]).toEqual([name, true]);
    // What npx runs: the link the install made, to this workspace's own file.
    expect([name, realpathSync(join(clone, 'node_modules', '.bin', name))]).toEqual([
      name,
      realpathSync(bins.get(name) ?? ''),
    ]);
  }
});

it('`npx --no-install gr --help` prints gr’s usage', async () => {
  const help = await run('npx', ['--no-install', 'gr', '--help'], {
    cwd: clone,
    timeoutMs: 60_000,
  });
  expect(help.code).toBe(0);
  expect(help.stdout).toMatch(/^Usage: gr /m);
  expect(help.stdout).toContain('Governed Runtime operator CLI');
});

it('`npx --no-install gr keys whoami` names the key it is given', async () => {
  const whoami = await run('npx', ['--no-install', 'gr', 'keys', 'whoami'], {
    cwd: clone,
    env: {
      GR_URL: app.url,
      GR_API_KEY: newcomer.apiKey,
      // No profile file of the machine's user is read.
      XDG_CONFIG_HOME: join(dirname(clone), 'config'),
    },
    timeoutMs: 60_000,
  });
  expect({ code: whoami.code, stderr: whoami.stderr }).toEqual({ code: 0, stderr: '' });
  expect(whoami.stdout).toContain('Newcomer <');
  expect(whoami.stdout).toContain(newcomer.principalId);
  expect(whoami.stdout).toMatch(new RegExp(`key\\s+${newcomer.keyId}\\b`));
});
