import { MongoClient } from 'mongodb';
import { eventRecordOf } from '../../src/domain/external-events/external-events.service';
import {
  createExternalEventsRepo,
  type ExternalEventRecord,
} from '../../src/store/external-events.repo';
import { createWitnessJournalRepo } from '../../src/store/witness-journal.repo';
import { journaledEvents } from '../../src/store/witness-recorder';

/** Events per claim (what one ingest-batch claims at most is 500). */
const BATCH = 1000;

/**
 * External events `from` … `from + count - 1`, shaped by the ingest route's own record
 * builder (`eventRecordOf`) and written by the repository's own claim (`claimMany`: the
 * history feed's slots, the events, their witness journal slot).
 * They are about `objects` in turn (none: about no object) and in `context`, or else in 100
 * shared contexts. `reconciled`: each gets its reconciliation output, as every ingested
 * event does (`unmatched`: the seeded objects are not reconciled against), through the
 * repository's own write, so a history page reads outcomes as it does of ingested events (a
 * process keeps those written).
 */
export async function seedEvents(
  mongoUri: string,
  from: number,
  count: number,
  options: { objects?: readonly string[]; context?: string; reconciled?: boolean } = {},
): Promise<void> {
  const objects = options.objects ?? [];
  const client = await MongoClient.connect(mongoUri);
  try {
    const repo = journaledEvents(
      createExternalEventsRepo(client.db()),
      createWitnessJournalRepo(client.db()),
    );
    const at = new Date().toISOString();
    for (let start = from; start < from + count; start += BATCH) {
      const batch: ExternalEventRecord[] = [];
      for (let i = start; i < Math.min(from + count, start + BATCH); i += 1) {
        batch.push(
          eventRecordOf(
            {
              source_family: 'bench.scale',
              source_event_id: String(i),
              event_type: 'service.status_changed',
              occurred_at: at,
              ...(objects.length > 0 ? { world_object_ref: objects[i % objects.length] } : {}),
              shared_context_id: options.context ?? `ctx-${i % 100}`,
              payload: { status: i % 3 === 0 ? 'down' : 'up', seq: i },
            },
            at,
          ),
        );
      }
      await repo.claimMany(batch);
      if (!options.reconciled) continue;
      await repo.recordReconciliations(
        batch.map((event) => ({
          _id: event.event_id,
          event_key: event._id,
          outcome: 'unmatched',
          generation: null,
          revision: null,
          reconciled_at: at,
        })),
      );
    }
  } finally {
    await client.close();
  }
}
