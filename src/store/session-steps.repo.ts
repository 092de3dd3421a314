import { createKeyedMutex } from '../lib/keyed-mutex';
import { newestFilledSlot } from '../lib/slot-chain';
import { LRUCache } from 'lru-cache';
import { MongoBulkWriteError, type Db, type WriteError } from 'mongodb';
import type { StepLeases } from './step-leases';
import { packStep, unpackStep, type SessionStepRecord, type StoredStep } from './stored-steps';

export type { SessionFold, SessionStepRecord } from './stored-steps';

/** Most steps written by one insert command. */
const MAX_BATCH = 128;

interface PendingInsert {
  record: SessionStepRecord;
  settle: (inserted: boolean) => void;
  fail: (error: unknown) => void;
}

export const stepId = (sessionId: string, step: number): string => `${sessionId}:${step}`;

/**
 * Session steps, stored as dense, immutable slots `<session_id>:1, :2, ...`.
 *
 * Claiming step n is inserting slot n (FerretDB has no transactions and its updates are
 * read-modify-write, so only an insert on `_id` is a safe claim). A step is only ever
 * inserted by a caller who has read slot n-1, so slots never skip and the newest step can
 * be found from any known slot with `_id` reads alone (gallop, then bisect): no filter
 * ever scans the collection. Records never change, so this process caches the newest step
 * it knows per session and the note steps `recall` re-reads; a stale cache only costs a
 * failed insert or one more probe, never a wrong answer.
 */
export function createSessionStepsRepo(db: Db, leases: StepLeases) {
  const col = db.collection<StoredStep>('session_steps');
  const newest = new LRUCache<string, SessionStepRecord>({ max: 10_000 });
  /** Claims of one session run one at a time in this process (see `exclusive`). */
  const claims = createKeyedMutex();
  /** Inserts waiting for the one in flight (see `insert`). */
  let waiting: PendingInsert[] = [];
  let writing = false;
  const notes = new LRUCache<string, SessionStepRecord>({ max: 5_000 });

  const remember = (record: SessionStepRecord): void => {
    const known = newest.get(record.session_id);
    if (!known || known.step < record.step) newest.set(record.session_id, record);
    if (record.command === 'note') notes.set(record._id, record);
  };

  /** Writes the waiting inserts as one unordered command; a duplicate fails only its own. */
  async function flush(batch: PendingInsert[]): Promise<void> {
    try {
      await col.insertMany(
        batch.map((pending) => packStep(pending.record)),
        { ordered: false },
      );
      for (const pending of batch) pending.settle(true);
    } catch (error) {
      if (!(error instanceof MongoBulkWriteError)) {
        for (const pending of batch) pending.fail(error);
        return;
      }
      const errors = ([] as WriteError[]).concat(error.writeErrors);
      const byIndex = new Map(errors.map((writeError) => [writeError.index, writeError]));
      batch.forEach((pending, index) => {
        const writeError = byIndex.get(index);
        if (!writeError) pending.settle(true);
        else if (writeError.code === 11000) pending.settle(false);
        else pending.fail(error);
      });
    }
  }

  function pump(): void {
    if (writing || waiting.length === 0) return;
    writing = true;
    const batch = waiting.slice(0, MAX_BATCH);
    waiting = waiting.slice(MAX_BATCH);
    void flush(batch).finally(() => {
      writing = false;
      pump();
    });
  }

  async function find(sessionId: string, step: number): Promise<SessionStepRecord | null> {
    const cached = notes.get(stepId(sessionId, step));
    if (cached) return cached;
    const stored = await col.findOne({ _id: stepId(sessionId, step) });
    if (!stored) return null;
    const record = unpackStep(stored);
    remember(record);
    return record;
  }

  /** The newest step at or after `floor` (a step known to exist), or null for none. */
  async function newestFrom(
    sessionId: string,
    floor: SessionStepRecord | null,
  ): Promise<SessionStepRecord | null> {
    const newest = await newestFilledSlot((step) => find(sessionId, step), {
      slot: floor?.step ?? 0,
      value: floor,
    });
    return newest.value;
  }

  return {
    find,
    /** Every stored step's id (the witnesses count each session's newest). */
    async *witnessScan(): AsyncGenerator<{ kind: 'step'; record: { _id: string } }> {
      for await (const record of col.find({}, { projection: { _id: 1 } })) {
        yield { kind: 'step', record: { _id: record._id } };
      }
    },
    /**
     * Inserts the step; false when its number is already taken. The step is not journaled:
     * it is written under a step lease of its session (`step-leases.ts`), which witnesses
     * read, and they count the session's steps from its slot chain.
     *
     * Group commit: with no write in flight the step is written at once; steps arriving
     * meanwhile wait and go together as one unordered `insertMany`. FerretDB commits each
     * command as one SQLite transaction, so grouping multiplies the steps a second it can
     * take, at no cost when idle.
     */
    async insert(record: SessionStepRecord): Promise<boolean> {
      const leaseEnd = await leases.ensure(record.session_id);
      const inserted = await new Promise<boolean>((settle, fail) => {
        waiting.push({ record, settle, fail });
        pump();
      });
      if (inserted) {
        remember(record);
        await leases.after(record.session_id, leaseEnd);
      }
      return inserted;
    },
    /**
     * The newest step number of the session, confirmed against the database, from `known`
     * (a step known to exist; 0: none): one probe when nothing is new.
     */
    async newestNumber(sessionId: string, known: number): Promise<number> {
      const cached = newest.get(sessionId)?.step ?? 0;
      const { slot } = await newestFilledSlot((step) => find(sessionId, step), {
        slot: Math.max(known, cached),
        value: null,
      });
      return slot;
    },
    /**
     * The newest step as this process last saw it, without asking the database when it has
     * seen one: good enough to attempt the next insert, which fails if the cache is stale.
     */
    async lastKnown(sessionId: string): Promise<SessionStepRecord | null> {
      return newest.get(sessionId) ?? newestFrom(sessionId, null);
    },
    /** The newest step, confirmed against the database (one probe when the cache is right). */
    async newest(sessionId: string): Promise<SessionStepRecord | null> {
      return newestFrom(sessionId, newest.get(sessionId) ?? null);
    },
    /**
     * Runs `claim` after every earlier claim of this process on the session. Steps of one
     * session sent at once to one api instance then queue instead of racing for the same
     * slot (each lost race costs an insert and two reads, and they compound); instances still
     * race each other, and the unique insert keeps that correct.
     */
    exclusive: <T>(sessionId: string, claim: () => Promise<T>): Promise<T> =>
      claims.run(sessionId, claim),
    /** The newest step once step `taken` is known to exist (after a lost insert race). */
    async newestAfter(sessionId: string, taken: number): Promise<SessionStepRecord | null> {
      const floor = await find(sessionId, taken);
      return newestFrom(sessionId, floor ?? newest.get(sessionId) ?? null);
    },
  };
}

export type SessionStepsRepo = ReturnType<typeof createSessionStepsRepo>;
