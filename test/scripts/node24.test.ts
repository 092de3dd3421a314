import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';

// `use_node_24` (scripts/lib/common.sh): every script runs on Node 24 or later, PATH's own
// when it has one, else the pinned release fetched once into the cache, checked and moved
// into place whole.

const ROOT = resolve(__dirname, '..', '..');
const COMMON = join(ROOT, 'scripts', 'lib', 'common.sh');
const PINNED = /^NODE_24_VERSION=(\S+)$/m.exec(readFileSync(COMMON, 'utf8'))?.[1] ?? '';
const ARCH: Record<string, string> = { x64: 'x64', arm64: 'arm64' };
const PLATFORM = `${process.platform}-${ARCH[process.arch] ?? process.arch}`;
/** What a cache folder holds, apart from the install lock's file. */
const cached = (cache: string) =>
  readdirSync(cache)
    .filter((name) => name !== '.node-install.lock')
    .sort();
/** Where the pinned release is installed for this machine, below a cache folder. */
const installedDir = (cache: string) => join(cache, `node-${PINNED}-${PLATFORM}`);

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'gr-node24-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/** A folder holding an executable `name` with this shell body. */
function fakeBin(name: string, body: string): string {
  const dir = mkdtempSync(join(scratch, `${name}-`));
  writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(dir, name), 0o755);
  return dir;
}

/** A `node` that says it is 20 and otherwise is the Node running the tests (npm runs on it). */
const node20 = () =>
  fakeBin(
    'node',
    `if [ "$1" = --version ]; then echo v20.20.2; exit 0; fi\nexec "${process.execPath}" "$@"`,
  );

/** Sources common.sh and runs `script` with `pathFirst` ahead of the machine's PATH. */
function inShell(script: string, pathFirst: string[], cache: string) {
  const run = spawnSync('bash', ['-c', `set -euo pipefail; source "${COMMON}"; ${script}`], {
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: [...pathFirst, process.env['PATH'] ?? ''].join(delimiter),
      GR_CACHE_DIR: cache,
      GR_NODE: '',
    },
    timeout: 240_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

it('uses PATH’s Node when it is 24 or later, and fetches nothing', () => {
  const cache = join(scratch, 'cache');
  const ours = dirname(process.execPath);
  const out = inShell('use_node_24; command -v node; use_node_24', [ours], cache);
  expect(out).toMatchObject({ code: 0, stderr: '' });
  // One line says which Node; the second call, on the same Node, says nothing.
  expect(out.stdout).toBe(
    `node: ${process.version} (${join(ours, 'node')})\n${join(ours, 'node')}\n`,
  );
  expect(existsSync(cache)).toBe(false);
});

const published = PLATFORM === 'linux-x64';
(published ? it : it.skip)(
  'with an older Node on PATH, installs the pinned release once into the cache and puts it first on PATH',
  () => {
    const cache = join(scratch, 'cache');
    // What an install interrupted under the lock leaves behind.
    mkdirSync(join(cache, '.tmp-node.interrupted'), { recursive: true });
    const old = node20();
    const first = inShell(
      'use_node_24; node --version; command -v node; use_node_24; bash -c "node --version"',
      [old],
      cache,
    );
    expect(first.code).toBe(0);
    const bin = join(installedDir(cache), 'bin', 'node');
    expect(first.stdout).toBe(
      `node: v${PINNED} (${bin}; PATH had v20.20.2)\nv${PINNED}\n${bin}\nv${PINNED}\n`,
    );
    expect(cached(cache)).toEqual([`node-${PINNED}-${PLATFORM}`]);

    // Installed once: a later script finds it without asking npm.
    const noNpm = fakeBin('npm', 'echo "npm called" >&2; exit 1');
    const again = inShell('use_node_24; node --version', [noNpm, old], cache);
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).toBe(`node: v${PINNED} (${bin}; PATH had v20.20.2)\nv${PINNED}\n`);
  },
);

it('refuses a fetched Node that is not the pinned release, and leaves nothing in the cache', () => {
  const cache = join(scratch, 'cache');
  // An `npm pack` that hands over a package whose node reports another version.
  const packed = join(scratch, 'packed');
  mkdirSync(join(packed, 'package', 'bin'), { recursive: true });
  writeFileSync(join(packed, 'package', 'bin', 'node'), '#!/bin/sh\necho v24.0.0\n');
  chmodSync(join(packed, 'package', 'bin', 'node'), 0o755);
  const npm = fakeBin('npm', `tar -czf "node-${PLATFORM}-${PINNED}.tgz" -C "${packed}" package`);
  const out = inShell('use_node_24; echo "still running"', [npm, node20()], cache);
  expect(out.code).toBe(1);
  expect(out.stdout).not.toContain('still running');
  expect(out.stderr).toContain('error: the fetched Node failed verification: v24.0.0');
  expect(cached(cache)).toEqual([]);
});
