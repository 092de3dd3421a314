import type { DomainInfra } from '../infra';
import { found, notFound } from '../../lib/errors';
import type { ArtifactRecord } from '../../store/artifacts.repo';
import { withIdAs } from '../../lib/records';

type ArtifactDeps = Pick<DomainInfra, 'repos'>;

/** Text content up to this size is returned inline by `GET /v1/artifacts/{path}`. */
const INLINE_LIMIT = 256 * 1024;

/** An artifact's metadata as clients see it. */
export const toArtifactView = (artifact: ArtifactRecord) => withIdAs(artifact, 'artifact_id');

const isText = (contentType: string): boolean =>
  /^(text\/|application\/json|image\/svg\+xml)/.test(contentType);

/** `GET /v1/substrates/artifacts/{id}`: metadata only. */
export async function getArtifact(deps: ArtifactDeps, artifactId: string) {
  const artifact = await found(deps.repos.artifacts.findById(artifactId), `artifact ${artifactId}`);
  return toArtifactView(artifact);
}

async function byPath(deps: ArtifactDeps, path: string) {
  const artifact = await deps.repos.artifacts.findByPath(path);
  if (!artifact) throw notFound(`artifact ${path}`);
  const content = await deps.repos.artifacts.content(artifact);
  if (!content) throw notFound(`content of artifact ${path}`);
  return { artifact, content };
}

/**
 * `GET /v1/artifacts/{path}`: metadata, and the content inline when it is text of at most
 * 256 KiB (JSON parsed); otherwise `content` is null (`truncated` says when for size) and
 * `/raw` has the bytes.
 */
export async function getArtifactByPath(deps: ArtifactDeps, path: string) {
  const { artifact, content } = await byPath(deps, path);
  const text = isText(artifact.content_type);
  const truncated = text && artifact.size > INLINE_LIMIT;
  let inline: unknown = null;
  if (text && !truncated) {
    const body = content.toString('utf8');
    inline = artifact.content_type === 'application/json' ? (JSON.parse(body) as unknown) : body;
  }
  return {
    ...toArtifactView(artifact),
    content: inline,
    truncated,
    raw_url: `/v1/artifacts/${path}/raw`,
  };
}

/** `GET /v1/artifacts/{path}/raw`: the bytes, their content type and their sha256. */
export async function rawArtifact(deps: ArtifactDeps, path: string) {
  const { artifact, content } = await byPath(deps, path);
  return { bytes: content, contentType: artifact.content_type, sha256: artifact.sha256 };
}
