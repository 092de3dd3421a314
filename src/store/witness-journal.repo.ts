import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { newestFilledFrom } from '../lib/slot-chain';
import { isDuplicateKey } from './mongo';
import { packDocuments } from './packed-documents';
import {
  DELETES_PER_COMMAND,
  FULL_READ_EVERY_MS,
  INLINE_RECORDS,
  PACK_FROM_RECORDS,
  PAYLOAD_GRACE_MS,
  PAYLOADS_READ_ONE_BY_ONE,
  RECORDS_PER_SLOT,
  SLOT_MIN_AGE_MS,
  SLOTS_KEPT,
  SWEEP_EVERY_TRIMS,
  TRIM_EVERY,
  TRIM_INTERVAL_MS,
  deleteByIds,
  recordsOf,
  slotKey,
  type JournalChange,
  type JournalEntry,
  type JournalTail,
  type SlotClaim,
  type SlotPayload,
  type SlotRef,
} from './witness-journal-slots';

export {
  RECORDS_PER_SLOT,
  SLOTS_KEPT,
  type JournalChange,
  type JournalEntry,
  type JournalTail,
} from './witness-journal-slots';

/**
 * The witness journal: every change to a record a witness reads (actions, ledger entries,
 * events, reconciliations, tasks, sessions, steps, deployments), appended once the write is
 * stored (`witness-recorder.ts`), in slots 1, 2, 3, … with no gaps. It stands in for the change stream
 * FerretDB lacks (docs/witnesses.md, "The witness index").
 *
 * Shaped for what FerretDB v1 reads cheaply. Any filter but `{_id}` decodes the whole table,
 * and its `_id` lookups scanned too until our build fixed that (docs/ferretdb.md); a whole
 * small table, though, is one quick read. So the slots are claimed in `witness_slots`, small
 * documents of which only the newest `SLOTS_KEPT` are kept: a reader reads them all to learn
 * what is new (a millisecond or two), and a writer claims slot n + 1 by a unique insert of
 * its `_id` (the one exclusive write FerretDB has), only once it has seen slot n, so slots
 * never skip. A few changes travel in the claim itself (`INLINE_RECORDS`); more are a
 * separate document in `witness_payloads`, written before the claim that points to it, so a
 * claimed slot always has its changes; they are read by `_id` only when new.
 *
 * Appends queued while one is written share the next slot, so a busy process writes one
 * slot per round trip whatever its write rate.
 */
export function createWitnessJournalRepo(
  db: Db,
  options: { slotMinAgeMs?: number; trimIntervalMs?: number } = {},
) {
  const slotMinAgeMs = options.slotMinAgeMs ?? SLOT_MIN_AGE_MS;
  const trimIntervalMs = options.trimIntervalMs ?? TRIM_INTERVAL_MS;
  const claims = db.collection<SlotClaim>('witness_slots');
  const payloads = db.collection<SlotPayload>('witness_payloads');
  let known = 0;
  /** When `known` was last the head or this process's own claim (ms). */
  let knownAt = 0;
  let claimedHere = 0;
  let claimedAtTrim = 0;
  let lastTrim = 0;
  const waiting: { records: JournalChange[]; settle: () => void; fail: (e: unknown) => void }[] =
    [];
  let writing = false;
  let lastFullRead = 0;
  let trimsHere = 0;
  /** The claims this process made and has not removed yet, oldest first (see `trim`). */
  const ownClaims: SlotRef[] = [];

  /** Every slot kept, oldest first. */
  async function keptSlots(): Promise<SlotClaim[]> {
    const rows = await claims.find().toArray();
    return rows.sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
  }

  /** The newest of the kept slots (0: none), which this process then knows of. */
  function headOf(kept: SlotClaim[]): number {
    const head = kept.length ? Number(kept[kept.length - 1]._id) : 0;
    known = Math.max(known, head);
    knownAt = Date.now();
    return head;
  }
  const newest = async (): Promise<number> => headOf(await keptSlots());
  /** The newest slot from `filled` on (a slot known to be claimed), by `_id` probes. */
  async function newestFrom(filled: number): Promise<number> {
    const claimed = async (slot: number) =>
      (await claims.findOne({ _id: slotKey(slot) }, { projection: { _id: 1 } })) !== null;
    const slot = await newestFilledFrom(claimed, filled);
    known = Math.max(known, slot);
    return slot;
  }

  /**
   * Removes slots older than the newest `SLOTS_KEPT` and `SLOT_MIN_AGE_MS`, then their
   * payloads. The age is what lets readers probe: a slot a reader has not seen was written
   * after its last full read, under `FULL_READ_EVERY_MS` ago, so it is never removed yet.
   * Writers trim every `TRIM_EVERY` claims (at most every `TRIM_INTERVAL_MS`), and readers
   * when a full read finds the table well past `SLOTS_KEPT` (a burst of writes that then
   * stopped would leave it large). Both in the background, one trim at a time per process.
   *
   * A writer's trim removes the claims it made itself, which it remembers, so it reads
   * nothing: at hundreds of slots a second the 15 s of slots kept are thousands, and reading
   * them all every trim was a quarter of FerretDB's time in the sessions benchmark. Every
   * `SWEEP_EVERY_TRIMS`-th trim (the first one included), and a reader's, removes whatever
   * is old enough from a full read, which takes care of the claims of processes that are
   * gone. Every delete is by `_id`, the one filter FerretDB serves from its index: a filter on
   * `at` would decode every kept payload, seconds a trim with writes waiting behind it. A reader that read a claim just before its removal and finds
   * its payload gone folds again.
   */
  async function trim(head: number, kept?: SlotClaim[]): Promise<void> {
    if (head - SLOTS_KEPT <= 0) return;
    const floor = slotKey(head - SLOTS_KEPT);
    const cutoff = new Date(Date.now() - slotMinAgeMs).toISOString();
    const removable = (claim: SlotRef): boolean => claim._id <= floor && claim.at < cutoff;
    trimsHere += 1;
    const full = kept !== undefined || trimsHere % SWEEP_EVERY_TRIMS === 1;
    let own = 0;
    while (own < ownClaims.length && removable(ownClaims[own])) own += 1;
    const candidates = ownClaims.splice(0, own);
    if (full) {
      const mine = new Set(candidates.map((claim) => claim._id));
      for (const claim of kept ?? (await keptSlots())) {
        if (removable(claim) && !mine.has(claim._id)) candidates.push(claim);
      }
    }
    for (let i = 0; i < candidates.length; i += DELETES_PER_COMMAND) {
      const chunk = candidates.slice(i, i + DELETES_PER_COMMAND);
      await deleteByIds(
        claims,
        chunk.map((claim) => claim._id),
      );
      await deleteByIds(
        payloads,
        chunk.flatMap((claim) => (claim.payload_id ? [claim.payload_id] : [])),
      );
    }
    if (full) await sweepOrphans();
  }

  /**
   * Removes payloads no claim will ever point to: a writer that died between its payload
   * and its claim left one behind. Finding them means a filter on `at`, which FerretDB
   * answers by decoding every payload, so it runs with the full trims only. Payloads younger
   * than `PAYLOAD_GRACE_MS` past the oldest kept slot stay (a live writer's payload waits
   * for its claim).
   */
  async function sweepOrphans(): Promise<void> {
    const oldest = (await keptSlots())[0];
    if (!oldest) return;
    const before = new Date(Date.parse(oldest.at) - PAYLOAD_GRACE_MS).toISOString();
    await payloads.deleteMany({ at: { $lt: before } });
  }

  let trimming = false;
  /** Starts a trim unless one is running in this process. */
  function trimInBackground(head: number, kept?: SlotClaim[]): void {
    if (trimming) return;
    trimming = true;
    void trim(head, kept)
      .catch(() => undefined)
      .finally(() => {
        trimming = false;
      });
  }

  /**
   * The payloads of `ids`, in order (undefined: removed): a few by `_id`, more in one read
   * (a FerretDB without our `_id` fix scans the table per lookup, docs/ferretdb.md).
   */
  async function payloadsOf(ids: string[]): Promise<(SlotPayload | undefined)[]> {
    if (ids.length <= PAYLOADS_READ_ONE_BY_ONE) {
      const found = await Promise.all(ids.map((_id) => payloads.findOne({ _id })));
      return found.map((payload) => payload ?? undefined);
    }
    const byId = new Map<string, SlotPayload>();
    for (const payload of await payloads.find({ _id: { $in: ids } }).toArray()) {
      byId.set(payload._id, payload);
    }
    return ids.map((id) => byId.get(id));
  }

  /** The changes of each claim, in order (undefined: its payload was removed meanwhile). */
  async function entriesOf(fresh: SlotClaim[]): Promise<(JournalEntry | undefined)[]> {
    const found = await payloadsOf(
      fresh.flatMap((claim) => (claim.payload_id ? [claim.payload_id] : [])),
    );
    const entries: (JournalEntry | undefined)[] = [];
    for (const claim of fresh) {
      const slot = Number(claim._id);
      if (!claim.payload_id) {
        entries.push({ slot, at: claim.at, records: claim.records ?? [] });
        continue;
      }
      const payload = found.shift();
      entries.push(payload && { slot, at: payload.at, records: await recordsOf(payload) });
    }
    return entries;
  }

  /** Writes the changes, then claims the slot after the newest for them. */
  async function writeSlot(records: JournalChange[]): Promise<void> {
    const at = new Date().toISOString();
    let held: Pick<SlotClaim, 'payload_id' | 'records'> = { records };
    if (records.length > INLINE_RECORDS) {
      const payloadId = randomBytes(12).toString('hex');
      await payloads.insertOne(
        records.length >= PACK_FROM_RECORDS
          ? { _id: payloadId, at, packed: await packDocuments(records) }
          : { _id: payloadId, at, records },
      );
      held = { payload_id: payloadId };
    }
    // Slot known + 1 may have been trimmed (and would be claimed again, below the head) once
    // `known` is as old as a trimmed slot must be: then the head is read first.
    if (Date.now() - knownAt >= slotMinAgeMs / 2) await newest();
    let candidate = known + 1;
    for (;;) {
      try {
        await claims.insertOne({ _id: slotKey(candidate), ...held, at });
        known = Math.max(known, candidate);
        knownAt = Date.now();
        ownClaims.push({ _id: slotKey(candidate), payload_id: held.payload_id, at });
        break;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // Taken: the head is a few slots on, none of them trimmed (they are newer than the
        // one just taken); found by `_id` probes, not by reading every kept slot.
        candidate = (await newestFrom(candidate)) + 1;
      }
    }
    claimedHere += 1;
    if (claimedHere - claimedAtTrim >= TRIM_EVERY && Date.now() - lastTrim >= trimIntervalMs) {
      claimedAtTrim = claimedHere;
      lastTrim = Date.now();
      trimInBackground(candidate);
    }
  }

  /**
   * Starts the next slot write once the appends made in this turn of the event loop have
   * queued: callers settled together (a group of session steps or of ingest writes) append
   * together, and share one slot instead of the first taking a slot of its own.
   */
  let scheduled = false;
  function schedule(): void {
    if (writing || scheduled || waiting.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pump();
    });
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
        schedule();
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
              schedule();
            }),
        ),
      ).then(() => undefined);
    },
    /** The newest slot (0: none). */
    head: newest,
    /** The newest slot and the changes of every kept slot whose payload is still there. */
    async kept(): Promise<{ head: number; entries: JournalEntry[] }> {
      const kept = await keptSlots();
      const entries = await entriesOf(kept);
      return { head: headOf(kept), entries: entries.filter((entry) => entry !== undefined) };
    },
    /**
     * The slots after `slot`, in order, up to the newest: when nothing is new, one probe of
     * the next slot (or, every `FULL_READ_EVERY_MS`, one read of the kept slots).
     * Incomplete when some of them were removed, or the journal is behind `slot` (it
     * started again): the reader must fold the collections again.
     */
    async after(slot: number): Promise<JournalTail> {
      // Between full reads, a miss on the next slot's `_id` (a scan of a table of tiny
      // documents inside SQLite, nothing decoded) says nothing is new.
      if (Date.now() - lastFullRead < FULL_READ_EVERY_MS) {
        const next = await claims.findOne({ _id: slotKey(slot + 1) }, { projection: { _id: 1 } });
        if (!next) return { complete: true, entries: [] };
      }
      lastFullRead = Date.now();
      const kept = await keptSlots();
      const head = headOf(kept);
      if (kept.length > SLOTS_KEPT + TRIM_EVERY) trimInBackground(head, kept);
      if (head < slot) return { complete: false };
      const fresh = kept.filter((claim) => Number(claim._id) > slot);
      if (fresh.length > 0 && Number(fresh[0]._id) !== slot + 1) return { complete: false };
      const entries = await entriesOf(fresh);
      // A payload removed under a reader this far behind: it must fold again.
      if (entries.includes(undefined)) return { complete: false };
      return { complete: true, entries: entries as JournalEntry[] };
    },
  };
}

export type WitnessJournalRepo = ReturnType<typeof createWitnessJournalRepo>;
