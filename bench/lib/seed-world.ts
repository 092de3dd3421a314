import { MongoClient } from 'mongodb';
import { newId } from '../../src/lib/ids';
import type { WorldHistoryEvent } from '../../src/store/world-history.repo';
import type { WorldObject } from '../../src/store/world-objects.repo';
import { createWorldRevisionsRepo } from '../../src/store/world-revisions.repo';

/** Object kinds, in turn (the state route pages all kinds by default). */
const KINDS = ['service', 'dataset', 'document', 'queue'];

/**
 * `count` world objects with their `object.created` history events, shaped as the demo
 * world's seed writes them (`demoWorld`), each batch followed by a world revision advance
 * carrying its change, as every world repository write ends, so the api's world read cache
 * sees it and the revisions' totals count it. Returns the ids.
 */
export async function seedWorldObjects(mongoUri: string, count: number): Promise<string[]> {
  const client = await MongoClient.connect(mongoUri);
  const ids: string[] = [];
  try {
    const db = client.db();
    const objects = db.collection<WorldObject>('world_objects');
    const history = db.collection<WorldHistoryEvent>('world_history');
    const revisions = createWorldRevisionsRepo(db);
    const now = new Date().toISOString();
    for (let start = 0; start < count; start += 1000) {
      const batch: WorldObject[] = [];
      for (let i = start; i < Math.min(count, start + 1000); i += 1) {
        batch.push({
          _id: newId('obj'),
          kind: KINDS[i % KINDS.length],
          name: `scale object ${i}`,
          attributes: { status: 'draft', owner: `team-${i % 20}` },
          external_state: {},
          version: 1,
          created_at: now,
          updated_at: now,
        });
      }
      await objects.insertMany(batch, { ordered: false });
      const events: WorldHistoryEvent[] = batch.map((o) => ({
        _id: newId('evt'),
        kind: 'object.created',
        object_id: o._id,
        at: now,
        change: { after: { kind: o.kind, name: o.name, attributes: o.attributes }, version: 1 },
      }));
      await history.insertMany(events, { ordered: false });
      // The change each repository write reports with its advance, for the whole batch.
      const created: Record<string, number> = {};
      for (const o of batch) created[o.kind] = (created[o.kind] ?? 0) + 1;
      await revisions.advance({
        objects: batch.map((o) => o._id),
        created,
        history: events.map((e) => ({ id: e._id, at: e.at })),
      });
      ids.push(...batch.map((o) => o._id));
    }
    return ids;
  } finally {
    await client.close();
  }
}
