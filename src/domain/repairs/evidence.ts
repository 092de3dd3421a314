import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { EJSON } from 'bson';
import type { Repos } from '../../store';
import { newestFilledSlot } from '../../lib/slot-chain';
import type { WorldHistoryEvent } from '../../store/world-history.repo';
import type { WorldObject } from '../../store/world-objects.repo';
import type { HistoryPosition } from '../../store/event-history';
import type { PagePosition } from '../../store/paging';
import { RepairNotPossible, type RepairEvidence } from './diagnosis';
import type { RepairStrategy } from './schemas';

const gunzipAsync = promisify(gunzip);

export type EvidenceRepos = Pick<
  Repos,
  | 'worldObjects'
  | 'worldHistory'
  | 'worldExternalState'
  | 'externalEvents'
  | 'checkpoints'
  | 'artifacts'
>;

/** Most history events or ingested events a repair reads of one object. */
export const MAX_OBJECT_RECORDS = 20_000;
const PAGE = 500;

/**
 * Reads what a repair of `object` under `strategy` judges by: its history, the head of its
 * external-state chain, and (by strategy) its ingested events or a checkpoint's copy.
 */
export async function gatherEvidence(
  repos: EvidenceRepos,
  object: WorldObject,
  strategy: RepairStrategy,
  checkpointId?: string | null,
): Promise<RepairEvidence> {
  const [history, externalHead] = await Promise.all([
    objectHistory(repos, object._id),
    externalHeadOf(repos, object._id),
  ]);
  return {
    object,
    history,
    externalHead,
    events: strategy === 'reconcile_external' ? await objectEvents(repos, object._id) : undefined,
    checkpointCopy:
      strategy === 'restore_last_good' && checkpointId
        ? await checkpointCopy(repos, checkpointId, object._id)
        : null,
  };
}

/** Every history event about the object (bounded by `MAX_OBJECT_RECORDS`). */
async function objectHistory(repos: EvidenceRepos, objectId: string): Promise<WorldHistoryEvent[]> {
  const events: WorldHistoryEvent[] = [];
  let after: PagePosition | undefined;
  for (;;) {
    const page = await repos.worldHistory.list({ object_id: objectId }, PAGE, after);
    events.push(...page.items.filter((event) => event.object_id === objectId));
    const last = page.items[page.items.length - 1];
    if (!page.next_cursor || !last || events.length >= MAX_OBJECT_RECORDS) return events;
    after = { at: last.at, id: last._id };
  }
}

/** The newest revision of the object's external-state chain (dense: found by `_id` reads). */
export async function externalHeadOf(repos: Pick<Repos, 'worldExternalState'>, objectId: string) {
  const head = await newestFilledSlot((n) => repos.worldExternalState.findRevision(objectId, n));
  return head.value?.state ?? null;
}

/** The object's ingested events, oldest recorded first (bounded by `MAX_OBJECT_RECORDS`). */
async function objectEvents(repos: EvidenceRepos, objectId: string) {
  const events = [];
  let after: HistoryPosition | undefined;
  for (;;) {
    const page = await repos.externalEvents.list({ world_object_ref: objectId }, PAGE, after);
    events.push(...page.items);
    if (!page.next || events.length >= MAX_OBJECT_RECORDS) break;
    after = page.next;
  }
  return events.reverse();
}

/** The object's attributes as a completed checkpoint copied them. */
async function checkpointCopy(repos: EvidenceRepos, checkpointId: string, objectId: string) {
  const checkpoint = await repos.checkpoints.findById(checkpointId);
  if (!checkpoint) throw new RepairNotPossible(`checkpoint ${checkpointId} does not exist`);
  if (checkpoint.status !== 'completed') {
    throw new RepairNotPossible(
      `checkpoint ${checkpointId} is ${checkpoint.status}, not completed`,
    );
  }
  const copy = checkpoint.scopes.world?.collections.find((c) => c.collection === 'world_objects');
  if (!copy) throw new RepairNotPossible(`checkpoint ${checkpointId} did not copy the world`);
  for (const part of copy.parts) {
    const artifact = await repos.artifacts.findById(part.artifact_id);
    const content = artifact && (await repos.artifacts.content(artifact));
    if (!content) throw new RepairNotPossible(`checkpoint part ${part.path} is missing`);
    const text = (await gunzipAsync(content)).toString('utf8');
    for (const line of text.split('\n')) {
      if (!line.includes(objectId)) continue;
      const doc = EJSON.parse(line, { relaxed: false }) as WorldObject;
      if (doc._id === objectId) return { checkpoint_id: checkpointId, attributes: doc.attributes };
    }
  }
  throw new RepairNotPossible(`checkpoint ${checkpointId} holds no copy of ${objectId}`);
}
