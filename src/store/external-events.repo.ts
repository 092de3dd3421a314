import { LRUCache } from 'lru-cache';
import type { Db } from 'mongodb';
import { createEventFeed } from './event-feed';
import { createEventHistory } from './event-history';
import { insertOnce, insertUnordered, isDuplicateRefusal } from './mongo';
import { byIdReader } from './reads-by-id';

/**
 * One ingested external event. `_id` is the dedup key, sha256 of `source_family`, NUL,
 * `source_event_id`: inserting the record *is* the claim of that key (a unique `_id` insert
 * is atomic on FerretDB and MongoDB alike), so there is never a second record.
 */
export interface ExternalEventRecord {
  _id: string;
  event_id: string;
  source_family: string;
  source_event_id: string;
  event_type: string;
  /** Normalised to ISO 8601 UTC with milliseconds. */
  occurred_at: string;
  received_at: string;
  world_object_ref: string | null;
  shared_context_id: string | null;
  payload: Record<string, unknown>;
  payload_sha256: string;
}

/** A field conflict an event took part in (see `src/domain/external-events/merge.ts`). */
export interface StoredConflict {
  field: string;
  resolution: 'won' | 'lost';
  against: { event_id: string; source_family: string; source_event_id: string };
}

/**
 * The reconciliation output of one event, written once; `_id` is the event id. Stored
 * compactly (the insert of these rows is on the ingest path): what the event record already
 * says (its object and context) is not repeated, and the list fields are left out when they
 * hold their usual value, which `src/domain/external-events/views.ts` puts back.
 */
export interface StoredReconciliation {
  _id: string;
  /** `_id` of the event record, so an event is read from its id by `_id` twice. */
  event_key: string;
  outcome: 'applied' | 'stale' | 'unmatched' | 'conflict';
  /** Object generation right after the event (null when unmatched). */
  generation: number | null;
  /** External-state revision the event was reconciled against or wrote (null when unmatched). */
  revision: number | null;
  reconciled_at: string;
  /** Absent: every payload field when `applied`, none otherwise. */
  applied_fields?: string[];
  /** Absent: none. */
  stale_fields?: string[];
  /** Absent: none. */
  conflicts?: StoredConflict[];
  /** Absent: null. */
  reason?: string;
}

/** Result of claiming one record of a batch. */
export type ClaimResult =
  { status: 'created' } | { status: 'duplicate' } | { status: 'failed'; message: string };

export type { EventListFilter } from './event-history';

/** The caller's limit on claim writes in flight, which a batch's insert goes through. */
export type ClaimGate = (write: () => Promise<ClaimResult[]>) => Promise<ClaimResult[]>;

/** What the witnesses read of an external event: everything but its payload. */
export type WitnessEvent = Omit<ExternalEventRecord, 'payload'>;
export type WitnessReconciliation = Pick<StoredReconciliation, '_id' | 'outcome' | 'reconciled_at'>;
export type EventChange =
  | { kind: 'event'; record: WitnessEvent }
  | { kind: 'reconciliation'; record: WitnessReconciliation };

export const witnessEvent = (event: ExternalEventRecord): EventChange => {
  const { payload: _payload, ...record } = event;
  return { kind: 'event', record };
};
export const witnessReconciliation = (row: WitnessReconciliation): EventChange => ({
  kind: 'reconciliation',
  record: { _id: row._id, outcome: row.outcome, reconciled_at: row.reconciled_at },
});

export function createExternalEventsRepo(db: Db) {
  const events = db.collection<ExternalEventRecord>('external_events');
  const reconciliations = db.collection<StoredReconciliation>('external_reconciliations');
  const feed = createEventFeed(db);
  const history = createEventHistory({ events, feed, readByIds: byIdReader(db) });
  /** Reconciliation outcomes a process read (a few dozen bytes each). */
  const outcomesKept = new LRUCache<string, StoredReconciliation['outcome']>({ max: 100_000 });
  return {
    /**
     * Claims the record's key; false when an event with that key exists already. The feed
     * lists the event first (`event-feed.ts`): a duplicate's entry names an event id that
     * is never stored, which history reads skip.
     */
    async claim(record: ExternalEventRecord): Promise<boolean> {
      await feed.record([record]);
      return insertOnce(events, record);
    },
    /**
     * Claims many keys in one unordered insert; one result per record, in order. The feed
     * lists them first, outside `gate` (the caller's limit on writes in flight), which the
     * insert goes through (with its journal append, `witness-recorder.ts`), as the whole
     * claim did before the feed: callers queued at the gate have their feed entries written
     * together meanwhile.
     */
    async claimMany(
      records: ExternalEventRecord[],
      gate: ClaimGate = (write) => write(),
    ): Promise<ClaimResult[]> {
      const results: ClaimResult[] = records.map(() => ({ status: 'created' }));
      if (records.length === 0) return results;
      await feed.record(records);
      return gate(async () => {
        for (const writeError of await insertUnordered(events, records)) {
          results[writeError.index] =
            writeError.code === 11000
              ? { status: 'duplicate' }
              : { status: 'failed', message: writeError.errmsg ?? 'write refused' };
        }
        return results;
      });
    },
    findByKey: (key: string) => events.findOne({ _id: key }),
    /**
     * An event by its id: through its reconciliation record (two reads by `_id`), or, for an
     * event whose ingest did not finish, by the `event_id` field.
     */
    async findByEventId(eventId: string): Promise<ExternalEventRecord | null> {
      const reconciliation = await reconciliations.findOne(
        { _id: eventId },
        { projection: { event_key: 1 } },
      );
      if (reconciliation) return events.findOne({ _id: reconciliation.event_key });
      return events.findOne({ event_id: eventId });
    },
    findReconciliation: (eventId: string) => reconciliations.findOne({ _id: eventId }),
    /**
     * Writes reconciliation outputs once each. An output already written (a concurrent
     * duplicate got there first) is kept, and returned in place of ours.
     */
    async recordReconciliations(records: StoredReconciliation[]): Promise<StoredReconciliation[]> {
      if (records.length === 0) return [];
      const duplicates = await insertUnordered(reconciliations, records, isDuplicateRefusal);
      const taken = new Set(duplicates.map((refusal) => refusal.index));
      const stored = await Promise.all(
        records.map(async (record, index) => {
          if (!taken.has(index)) return record;
          return (await reconciliations.findOne({ _id: record._id })) ?? record;
        }),
      );
      return stored;
    },
    /** Every stored event and reconciliation, as the witness journal carries them. */
    async *witnessScan(): AsyncGenerator<EventChange> {
      for await (const event of events.find({}, { projection: { payload: 0 } })) {
        yield witnessEvent(event);
      }
      const fields = { projection: { outcome: 1, reconciled_at: 1 } };
      for await (const row of reconciliations.find({}, fields)) yield witnessReconciliation(row);
    },
    /** Events newest recorded first, keyset-paged, read from the feed by `_id` (`event-history.ts`). */
    list: history.list,
    /**
     * The outcomes of several events, one read by `_id` each (FerretDB scans for `$in`) but
     * for those this process read before: an output is written once and never changed, so a
     * read one is kept (one not written yet is read again).
     */
    async outcomesOf(eventIds: string[]): Promise<Map<string, StoredReconciliation['outcome']>> {
      const outcomes = new Map<string, StoredReconciliation['outcome']>();
      const missing: string[] = [];
      for (const id of eventIds) {
        const known = outcomesKept.get(id);
        if (known) outcomes.set(id, known);
        else missing.push(id);
      }
      const found = await Promise.all(
        missing.map((id) => reconciliations.findOne({ _id: id }, { projection: { outcome: 1 } })),
      );
      for (const row of found) {
        if (!row) continue;
        outcomes.set(row._id, row.outcome);
        outcomesKept.set(row._id, row.outcome);
      }
      return outcomes;
    },
  };
}

export type ExternalEventsRepo = ReturnType<typeof createExternalEventsRepo>;
