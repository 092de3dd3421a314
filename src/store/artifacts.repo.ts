import { createHash } from 'node:crypto';
import { Binary, type Db } from 'mongodb';
import { insertOnce } from './mongo';

export type ArtifactKind =
  | 'manifest'
  | 'snapshot'
  | 'assay_report'
  | 'render'
  | 'checkpoint'
  | 'dossier'
  | 'scenario_report';

/** An artifact's metadata; its bytes are in `artifact_blobs` under their sha256. */
export interface ArtifactRecord {
  /** `art_` + the first 32 hex digits of sha256(path): one id per path, whoever writes it. */
  _id: string;
  kind: ArtifactKind;
  path: string;
  content_type: string;
  size: number;
  sha256: string;
  deployment_id: string | null;
  created_at: string;
}

interface ArtifactBlob {
  _id: string;
  content: Binary;
  size: number;
  created_at: string;
}

export const sha256Hex = (bytes: Uint8Array | string): string =>
  createHash('sha256').update(bytes).digest('hex');

/** The id of the artifact at `path` (so a path lookup is a read by `_id`). */
export const artifactIdOf = (path: string): string => `art_${sha256Hex(path).slice(0, 32)}`;

/**
 * Content-addressed artifacts: bytes stored once per sha256 (`artifact_blobs`), metadata
 * once per path (`artifacts`). Both writes are inserts of deterministic ids, so a retried
 * or concurrent write of the same artifact is a no-op and nothing is stored twice.
 */
export function createArtifactsRepo(db: Db) {
  const artifacts = db.collection<ArtifactRecord>('artifacts');
  const blobs = db.collection<ArtifactBlob>('artifact_blobs');

  return {
    /**
     * Stores `content` at `path`; `created` is false when that path already held it. A path
     * never changes content: writing other bytes to a taken path throws.
     */
    async put(input: {
      path: string;
      kind: ArtifactKind;
      content_type: string;
      content: Uint8Array;
      deployment_id?: string | null;
      now: string;
    }): Promise<{ artifact: ArtifactRecord; created: boolean }> {
      const sha256 = sha256Hex(input.content);
      await insertOnce(blobs, {
        _id: sha256,
        content: new Binary(Buffer.from(input.content)),
        size: input.content.byteLength,
        created_at: input.now,
      });
      const artifact: ArtifactRecord = {
        _id: artifactIdOf(input.path),
        kind: input.kind,
        path: input.path,
        content_type: input.content_type,
        size: input.content.byteLength,
        sha256,
        deployment_id: input.deployment_id ?? null,
        created_at: input.now,
      };
      if (await insertOnce(artifacts, artifact)) return { artifact, created: true };
      const existing = await artifacts.findOne({ _id: artifact._id });
      if (!existing) throw new Error(`artifact ${artifact._id} vanished`);
      if (existing.sha256 !== sha256) {
        throw new Error(`artifact path ${input.path} already holds other content`);
      }
      return { artifact: existing, created: false };
    },
    findById: (id: string) => artifacts.findOne({ _id: id }),
    findByPath: (path: string) => artifacts.findOne({ _id: artifactIdOf(path) }),
    /** The bytes of an artifact; null when its blob is missing. */
    async content(artifact: ArtifactRecord): Promise<Buffer | null> {
      const blob = await blobs.findOne({ _id: artifact.sha256 });
      return blob ? Buffer.from(blob.content.buffer) : null;
    },
  };
}

export type ArtifactsRepo = ReturnType<typeof createArtifactsRepo>;
