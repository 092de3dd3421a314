import { Invalid } from '../../lib/errors';
import type { SubstrateSpecRequest } from './schemas';
import type { Repos } from '../../store';
import type { NormalizedSpec } from '../../store/substrate-deployments.repo';
import { sha256Hex } from '../../store/artifacts.repo';
import { toArtifactView } from '../artifacts/artifacts.service';
import { buildManifest, manifestBytes, manifestPath } from './manifest';
import { validateSpec, type SpecViolation } from './validation';

type CompileDeps = { repos: Pick<Repos, 'artifacts'> };

/** 422 naming every violation, each at its place in the body (`loc` starts at `base`). */
export function specViolations(violations: SpecViolation[], base: string[]) {
  return new Invalid(
    violations.map((v) => ({
      loc: ['body', ...base, ...v.path.split('.')],
      msg: v.message,
      type: `substrate.${v.rule}`,
    })),
  );
}

/** The normalized spec; 422 when the spec breaks its scaffold or envelope. */
export function requireValidSpec(spec: SubstrateSpecRequest, base: string[]): NormalizedSpec {
  const verdict = validateSpec(spec);
  if (!verdict.normalized_spec) throw specViolations(verdict.violations, base);
  return verdict.normalized_spec;
}

/** Compiles a normalized spec into its manifest artifact (stored once per content). */
export async function compileNormalized(deps: CompileDeps, spec: NormalizedSpec) {
  const manifest = buildManifest(spec);
  const bytes = manifestBytes(manifest);
  const { artifact, created } = await deps.repos.artifacts.put({
    path: manifestPath(sha256Hex(bytes)),
    kind: 'manifest',
    content_type: 'application/json',
    content: bytes,
    now: new Date().toISOString(),
  });
  return {
    artifact: toArtifactView(artifact),
    manifest,
    created,
  };
}

/** `POST /v1/substrates/compile`. */
export function compileSpec(deps: CompileDeps, body: SubstrateSpecRequest) {
  return compileNormalized(deps, requireValidSpec(body, []));
}
