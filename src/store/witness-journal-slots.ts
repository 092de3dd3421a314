/** The witness journal's stored shapes, limits and small helpers (`witness-journal.repo.ts`). */
import type { Binary, Collection, Filter } from 'mongodb';
import { unpackDocuments } from './packed-documents';

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
  /** The slot number. */
  slot: number;
  at: string;
  records: JournalChange[];
}

/**
 * A claimed slot: its number (`_id`, padded) and where its changes are: a few changes are
 * held in the claim itself (`records`), more in a payload of their own (`payload_id`).
 */
export interface SlotClaim {
  _id: string;
  payload_id?: string;
  records?: JournalChange[];
  at: string;
}

/**
 * The changes of one slot, written before the slot is claimed. Many changes are packed into
 * one binary value (`packed-documents.ts`: nobody queries inside a payload, and FerretDB's
 * cost grows with the fields it converts); fewer are stored as documents (`records`), as
 * every payload was before packing, since deflating a few costs the api more than FerretDB
 * saves.
 */
export interface SlotPayload {
  _id: string;
  at: string;
  packed?: Binary;
  records?: JournalChange[];
}

/** What a trim needs of a claim. */
export type SlotRef = Pick<SlotClaim, '_id' | 'payload_id' | 'at'>;

/** The changes a payload holds, packed or not. */
export async function recordsOf(payload: SlotPayload): Promise<JournalChange[]> {
  if (payload.packed) return unpackDocuments<JournalChange>(payload.packed);
  return payload.records ?? [];
}

/**
 * Up to this many changes are written into the slot's claim, with no payload: one insert
 * per slot instead of two (a session step journals one change, and steps arriving together
 * share a slot). The claims stay small: readers read them all every few seconds.
 */
export const INLINE_RECORDS = 16;
/** From this many changes on, a payload is packed. */
export const PACK_FROM_RECORDS = 64;

/** Most records in one slot: two 500-event ingest batches (packed, about 100 KB). */
export const RECORDS_PER_SLOT = 1000;
/** Slots kept: a reader further behind folds the collections again. */
export const SLOTS_KEPT = 256;
/** How often (in slots claimed by this process) older slots are removed... */
export const TRIM_EVERY = 32;
/**
 * ...but a writer trims at most this often: a trim reads every kept slot, and at hundreds of
 * slots a second (small appends, one slot per round trip) the 15 s of slots kept are
 * thousands; trimming every 32 claims then read them all several times a second (sessions
 * bench: a quarter of FerretDB's time in that read).
 */
export const TRIM_INTERVAL_MS = 5_000;
/** Payloads are kept this long past the oldest slot kept (a racing writer's are in flight). */
export const PAYLOAD_GRACE_MS = 60_000;
/** A reader reads all kept slots at least this often, probing by `_id` in between... */
export const FULL_READ_EVERY_MS = 5_000;
/** ...so a slot is removed only once this old (and after its step leases, step-leases.ts). */
export const SLOT_MIN_AGE_MS = 3 * FULL_READ_EVERY_MS;
/** Up to this many new slots are read by `_id` one by one; more, in one read of them all. */
export const PAYLOADS_READ_ONE_BY_ONE = 4;
/** Deletes sent in one command when trimming (FerretDB hung on bulk writes of ~100 updates). */
export const DELETES_PER_COMMAND = 32;
/** Orphaned payloads are looked for on a process's first trim and then every this many. */
export const SWEEP_EVERY_TRIMS = 64;

export const slotKey = (slot: number): string => String(slot).padStart(12, '0');

/** Deletes documents by `_id`, each its own statement of one command (so each uses the index). */
export async function deleteByIds<T extends { _id: string }>(
  col: Collection<T>,
  ids: string[],
): Promise<void> {
  if (ids.length === 0) return;
  await col.bulkWrite(
    ids.map((_id) => ({ deleteOne: { filter: { _id } as Filter<T> } })),
    { ordered: false },
  );
}

/** What a reader finds after its slot: the slots in order, or that it must fold again. */
export type JournalTail =
  | { complete: true; entries: JournalEntry[] }
  /** Slots it has not read were removed (only `SLOTS_KEPT` are), or the journal restarted. */
  | { complete: false };
