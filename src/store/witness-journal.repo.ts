import type { Db } from 'mongodb';
import { isDuplicateKey } from './mongo';

/**
 * One record change as the journal carries it: the kind of record and what the witnesses
 * read of it (each repository says what that is; `WitnessChange` in the domain lists them).
 */
export interface JournalChange {
  kind: string;
  record: { _id: string };
}

/** One slot of the journal: the record changes one process wrote together. */
export interface JournalEntry {
  _id: string;
  at: string;
  records: JournalChange[];
}

/** Most records in one slot: slots stay small (tens of KiB), so reading the newest is cheap. */
const RECORDS_PER_SLOT = 200;
/** The journal's cap: older slots are dropped past it (a reader that far behind refolds). */
const CAP_BYTES = 64 * 1024 * 1024;
const NAME = 'witness_journal';

const slotKey = (slot: number): string => String(slot).padStart(12, '0');
const slotOf = (entry: Pick<JournalEntry, '_id'>): number => Number(entry._id);

/** What a reader finds after its slot: the slots in order, or that it must fold again. */
export type JournalTail =
  | { complete: true; entries: JournalEntry[] }
  /** Slots it has not read were dropped (the cap), or the journal started again. */
  | { complete: false };

/**
 * The witness journal: every change to a record a witness reads (actions, ledger entries,
 * events, reconciliations, tasks, sessions, steps, deployments), appended by the repository
 * that wrote it, in slots 1, 2, 3, … with no gaps, each claimed by a unique insert of its
 * `_id` (the one exclusive write FerretDB has). It stands in for the change stream FerretDB
 * lacks (docs/witnesses.md, "The witness index").
 *
 * It is a capped collection read in natural (insertion) order, newest first: the one access
 * path FerretDB v1 serves from an index (the SQLite row id) rather than by reading the table,
 * so finding the newest slot, or the few after a reader's, costs the same at any size. (Its
 * `_id` lookups scan the table: they stop early on a hit near the start, never on a miss.)
 * Slots are inserted in slot order, because a writer claims slot n + 1 only once it has seen
 * slot n; so natural order is slot order.
 *
 * Appends queued while one is written share the next slot, so a busy process writes one
 * slot per round trip whatever its write rate.
 */
export function createWitnessJournalRepo(db: Db) {
  const col = db.collection<JournalEntry>(NAME);
  let known = 0;
  const waiting: { records: JournalChange[]; settle: () => void; fail: (e: unknown) => void }[] =
    [];
  let writing = false;
  let ready: Promise<void> | undefined;

  /** Creates the capped collection once; a journal left uncapped (older builds) is dropped. */
  async function ensure(): Promise<void> {
    const [info] = await db.listCollections({ name: NAME }).toArray();
    if ((info as { options?: { capped?: boolean } } | undefined)?.options?.capped) return;
    // Derived data only: every reader folds the collections again when its slot is gone.
    if (info) await db.dropCollection(NAME);
    try {
      await db.createCollection(NAME, { capped: true, size: CAP_BYTES });
    } catch (error) {
      if ((error as { code?: number }).code !== 48) throw error; // NamespaceExists: a racer made it
    }
  }
  const ensured = (): Promise<void> =>
    (ready ??= ensure().catch((error: unknown) => {
      ready = undefined;
      throw error;
    }));

  /** The slots newer than `after`, newest first, read in natural order from the newest. */
  async function newerThan(after: number): Promise<{ entries: JournalEntry[]; older: number }> {
    await ensured();
    const entries: JournalEntry[] = [];
    let older = 0;
    const cursor = col.find({}, { sort: { $natural: -1 }, batchSize: 8 });
    try {
      for await (const entry of cursor) {
        if (slotOf(entry) <= after) {
          older = slotOf(entry);
          break;
        }
        entries.push(entry);
      }
    } finally {
      await cursor.close();
    }
    return { entries, older };
  }

  /** The newest slot (0: none). */
  async function newest(): Promise<number> {
    const { older } = await newerThan(Number.MAX_SAFE_INTEGER);
    known = Math.max(known, older);
    return older;
  }

  /** Inserts one slot after the newest; on a duplicate, finds the newest and tries again. */
  async function writeSlot(records: JournalChange[]): Promise<void> {
    await ensured();
    let candidate = known + 1;
    for (;;) {
      try {
        await col.insertOne({ _id: slotKey(candidate), at: new Date().toISOString(), records });
        known = Math.max(known, candidate);
        return;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        candidate = (await newest()) + 1;
      }
    }
  }
  function pump(): void {
    if (writing || waiting.length === 0) return;
    writing = true;
    const batch: typeof waiting = [];
    let size = 0;
    while (
      waiting.length > 0 &&
      (batch.length === 0 || size + waiting[0].records.length <= RECORDS_PER_SLOT)
    ) {
      const next = waiting.shift()!;
      size += next.records.length;
      batch.push(next);
    }
    void writeSlot(batch.flatMap((pending) => pending.records))
      .then(
        () => batch.forEach((pending) => pending.settle()),
        (error: unknown) => batch.forEach((pending) => pending.fail(error)),
      )
      .finally(() => {
        writing = false;
        pump();
      });
  }

  return {
    /** Appends record changes; resolves once they are stored in a slot. */
    append(records: JournalChange[]): Promise<void> {
      if (records.length === 0) return Promise.resolve();
      const chunks: JournalChange[][] = [];
      for (let i = 0; i < records.length; i += RECORDS_PER_SLOT) {
        chunks.push(records.slice(i, i + RECORDS_PER_SLOT));
      }
      return Promise.all(
        chunks.map(
          (chunk) =>
            new Promise<void>((settle, fail) => {
              waiting.push({ records: chunk, settle, fail });
              pump();
            }),
        ),
      ).then(() => undefined);
    },
    /** The newest slot (0: none). */
    head: newest,
    /**
     * The slots after `slot`, in order, up to the newest: one read of the newest slot when
     * nothing is new. Incomplete when some of them were dropped, or the journal is behind
     * `slot` (it was started again): the reader must fold the collections again.
     */
    async after(slot: number): Promise<JournalTail> {
      const { entries, older } = await newerThan(slot);
      entries.reverse();
      if (entries.length > 0 && slotOf(entries[0]) !== slot + 1) return { complete: false };
      if (entries.length === 0 && older < slot) return { complete: false };
      if (entries.length > 0) known = Math.max(known, slotOf(entries[entries.length - 1]));
      return { complete: true, entries };
    },
  };
}

export type WitnessJournalRepo = ReturnType<typeof createWitnessJournalRepo>;
