import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import semver from 'semver';

/**
 * The Node range we claim (`engines.node` in package.json, root and packages/client) must lie
 * within the range every installed production dependency claims for itself, so that no
 * supported Node is one a dependency refuses, and must hold the Node the scripts run
 * everything on and the one the Docker image has (docs/dependencies.md, "Node support").
 */

interface Manifest {
  name: string;
  version: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const ROOT = resolve(__dirname, '..');

const readManifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** Where Node would load `name` from when required in `fromDir` (nearest node_modules up). */
function installedDir(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Every package the production dependency tree of `dir` installs, with its engines range. */
function productionTree(dir: string): Map<string, string | undefined> {
  const found = new Map<string, string | undefined>();
  const visited = new Set<string>();
  const missing: string[] = [];
  const walk = (packageDir: string) => {
    if (visited.has(packageDir)) return;
    visited.add(packageDir);
    const manifest = readManifest(packageDir);
    if (packageDir !== dir)
      found.set(`${manifest.name}@${manifest.version}`, manifest.engines?.node);
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      const child = installedDir(name, packageDir);
      if (child) walk(child);
      else missing.push(`${name} (needed by ${manifest.name})`);
    }
    // Optional ones (other platforms' binaries) count only where installed.
    for (const name of Object.keys(manifest.optionalDependencies ?? {})) {
      const child = installedDir(name, packageDir);
      if (child) walk(child);
    }
  };
  walk(dir);
  expect(missing).toEqual([]);
  return found;
}

describe.each([
  ['the service', ROOT],
  ['@governed-runtime/client', join(ROOT, 'packages/client')],
])('the Node range %s claims', (_name, dir) => {
  const claimed = readManifest(dir).engines?.node ?? '';

  it('is a valid range that the Node running the tests is in', () => {
    expect(semver.validRange(claimed)).not.toBeNull();
    expect(semver.satisfies(process.versions.node, claimed)).toBe(true);
  });

  it("lies within every installed production dependency's own engines.node", () => {
    const tree = productionTree(dir);
    expect(tree.size).toBeGreaterThan(0);
    const refusing = [...tree]
      .filter(([, range]) => range !== undefined && !semver.subset(claimed, range))
      .map(([pkg, range]) => `${pkg} needs node ${range}`);
    expect(refusing).toEqual([]);
  });
});

it("the Node the scripts run on and the Docker image's are in the service's range", () => {
  const claimed = readManifest(ROOT).engines?.node ?? '';
  const common = readFileSync(join(ROOT, 'scripts/lib/common.sh'), 'utf8');
  const pinned = /^NODE_24_VERSION=(\S+)$/m.exec(common)?.[1];
  expect(pinned).toBeDefined();
  expect(semver.satisfies(pinned ?? '', claimed)).toBe(true);
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const images = [...dockerfile.matchAll(/^FROM node:(\d+)\S*/gm)].map((m) => m[1] ?? '');
  expect(images.length).toBeGreaterThan(0);
  for (const major of images)
    expect([major, semver.subset(`^${major}`, claimed)]).toEqual([major, true]);
});

it('the service and its client claim the same Node range', () => {
  expect(readManifest(join(ROOT, 'packages/client')).engines).toEqual(readManifest(ROOT).engines);
});
