import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Context } from '@temporalio/activity';
import { EJSON } from 'bson';
import type { Repos } from '../store';
import type { CheckpointRecord, CollectionCopy } from '../store/checkpoints.repo';

export interface CheckpointActivityDeps {
  repos: Pick<
    Repos,
    'artifacts' | 'checkpoints' | 'collectionReader' | 'worldHistory' | 'worldRevisions'
  >;
}

/** Documents per part: a gzipped NDJSON part stays far below a document's 16 MiB. */
const PART_DOCUMENTS = 20_000;

const sha256 = (bytes: Uint8Array | string): string =>
  createHash('sha256').update(bytes).digest('hex');

/** Activities of the checkpoint workflow; each is idempotent (content-addressed writes). */
export function createCheckpointActivities(deps: CheckpointActivityDeps) {
  const { repos } = deps;
  /** Stores one file of a checkpoint (a part or the manifest) as an artifact. */
  const putFile = (path: string, contentType: string, content: Buffer) =>
    repos.artifacts.put({
      path,
      kind: 'checkpoint',
      content_type: contentType,
      content,
      now: new Date().toISOString(),
    });
  return {
    async recordCheckpoint(record: CheckpointRecord): Promise<void> {
      await repos.checkpoints.project(record);
    },

    /** Where the world stood: its history head and revision. */
    async worldPosition(): Promise<{ history_head: string | null; world_revision: number }> {
      const [head, revision] = await Promise.all([
        repos.worldHistory.head(),
        repos.worldRevisions.current(),
      ]);
      return { history_head: head, world_revision: revision };
    },

    /**
     * Copies one collection into gzipped NDJSON parts (canonical extended JSON, one document
     * a line), streaming with a heartbeat per batch: memory holds one part at a time. A
     * retry starts the collection again; parts are content-addressed (their path carries
     * their digest), so a retry never collides with what an earlier attempt wrote.
     */
    async copyCollection(input: {
      checkpoint_id: string;
      collection: string;
    }): Promise<CollectionCopy> {
      const parts: CollectionCopy['parts'] = [];
      let lines: string[] = [];
      let count = 0;
      const flush = async () => {
        if (lines.length === 0) return;
        const content = gzipSync(`${lines.join('\n')}\n`);
        const digest = sha256(content);
        const path = `checkpoints/${input.checkpoint_id}/${input.collection}/${String(parts.length + 1).padStart(4, '0')}-${digest.slice(0, 12)}.ndjson.gz`;
        const { artifact } = await putFile(path, 'application/gzip', content);
        parts.push({ path, artifact_id: artifact._id, sha256: digest, count: lines.length });
        lines = [];
      };
      for await (const doc of repos.collectionReader.stream(input.collection)) {
        lines.push(EJSON.stringify(doc, { relaxed: false }));
        count += 1;
        if (lines.length >= PART_DOCUMENTS) await flush();
        if (count % 1000 === 0)
          Context.current().heartbeat({ collection: input.collection, count });
      }
      await flush();
      return {
        collection: input.collection,
        count,
        parts,
        sha256: sha256(parts.map((part) => part.sha256).join('\n')),
      };
    },

    /** Writes `checkpoints/<id>/manifest.json`; answers where it is. */
    async writeCheckpointManifest(
      record: CheckpointRecord,
    ): Promise<NonNullable<CheckpointRecord['manifest']>> {
      const manifest = {
        checkpoint_id: record._id,
        label: record.label,
        created_at: record.created_at,
        history_head: record.history_head,
        world_revision: record.world_revision,
        scopes: record.scopes,
      };
      const content = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
      const path = `checkpoints/${record._id}/manifest.json`;
      const { artifact } = await putFile(path, 'application/json', content);
      return { path, artifact_id: artifact._id, sha256: artifact.sha256 };
    },
  };
}
