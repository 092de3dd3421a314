import stringify from 'safe-stable-stringify';
import type { NormalizedSpec } from '../../store/substrate-deployments.repo';
import { canonicalRule } from './engine';

/** Bumped whenever the engine's stepping, PRNG or state encoding changes meaning. */
export const ENGINE_VERSION = '1';

/** A compiled spec: everything needed to reproduce the run, and nothing incidental. */
export interface SubstrateManifest {
  manifest_version: 1;
  scaffold: NormalizedSpec['scaffold'];
  envelope: string;
  rule: string;
  params: NormalizedSpec['params'];
  engine: { version: string; prng: string; digest: string };
}

/**
 * The manifest of a validated spec: what to run and with which engine, not any result of
 * running it, so compiling never runs the engine (a 4096 x 4096 random start alone costs a
 * tenth of a second). The state at tick 0 is the deploying stage's business.
 */
export function buildManifest(spec: NormalizedSpec): SubstrateManifest {
  return {
    manifest_version: 1,
    scaffold: spec.scaffold,
    envelope: spec.envelope,
    rule: canonicalRule(spec.scaffold, spec.params.rule),
    params: spec.params,
    engine: {
      version: ENGINE_VERSION,
      prng: 'mulberry32, cells drawn row-major, live when draw / 2^32 < density',
      digest: 'sha256 of `<width>x<height>:` then each row packed MSB-first',
    },
  };
}

/**
 * The manifest's canonical bytes (keys sorted at every level, no whitespace, a final
 * newline): the same spec gives the same bytes on every machine, so their sha256 is the
 * manifest's identity.
 */
export function manifestBytes(manifest: SubstrateManifest): Buffer {
  return Buffer.from(`${stringify(manifest)}\n`, 'utf8');
}

/** The path of a manifest artifact, named by its sha256. */
export const manifestPath = (sha256: string): string => `substrates/manifests/${sha256}.json`;

/** The spec a manifest was compiled from (to deploy a compiled artifact). */
export const specOfManifest = (manifest: SubstrateManifest): NormalizedSpec => ({
  scaffold: manifest.scaffold,
  envelope: manifest.envelope,
  params: manifest.params,
});
