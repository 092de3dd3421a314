import type { Db } from 'mongodb';
import { newestFilledSlot } from '../lib/slot-chain';
import type { ActionLedgerEntry, ActionRecord } from './external-actions.repo';
import type { ExternalEventRecord, StoredReconciliation } from './external-events.repo';
import { isDuplicateKey } from './mongo';
import type { SessionRecord } from './sessions.repo';
import type { WorldTask } from './world-tasks.repo';

/** What the witnesses read of an action: its projection without parameters, plan or execution. */
export type WitnessAction = Pick<
  ActionRecord,
  | '_id'
  | 'seq'
  | 'status'
  | 'action_kind'
  | 'target'
  | 'shared_context_id'
  | 'proposed_by'
  | 'approvals'
  | 'status_timestamps'
  | 'created_at'
  | 'updated_at'
> & { decisions: { principal_id: string; decision: string; reason: string | null }[] };
/** What the witnesses read of a ledger entry (the reason of a failure, not the whole detail). */
export type WitnessLedgerEntry = Omit<ActionLedgerEntry, 'detail' | 'actor'> & {
  reason: string | null;
};
/** What the witnesses read of an external event: everything but its payload. */
export type WitnessEvent = Omit<ExternalEventRecord, 'payload'>;
export type WitnessReconciliation = Pick<StoredReconciliation, '_id' | 'outcome' | 'reconciled_at'>;
export interface WitnessDeployment {
  _id: string;
  stage: string;
  updated_at: string;
}

/** One record change as the witness journal carries it. */
export type JournalRecord =
  | { kind: 'action'; record: WitnessAction }
  | { kind: 'ledger'; record: WitnessLedgerEntry }
  | { kind: 'event'; record: WitnessEvent }
  | { kind: 'reconciliation'; record: WitnessReconciliation }
  | { kind: 'task'; record: WorldTask }
  | { kind: 'session'; record: SessionRecord }
  | { kind: 'step'; record: { _id: string } }
  | { kind: 'deployment'; record: WitnessDeployment };

/** One slot of the journal: the record changes one process wrote together. */
export interface JournalEntry {
  _id: string;
  at: string;
  records: JournalRecord[];
}

/** Most records in one slot (a slot is one document; an ingest batch of 1,000 fits). */
const RECORDS_PER_SLOT = 2_000;
/** Slots read at once when catching up. */
const READ_AHEAD = 16;

/** Slots are padded strings so FerretDB finds them by `_id` without a scan. */
const slotKey = (slot: number): string => String(slot).padStart(12, '0');

export const witnessAction = (record: ActionRecord): WitnessAction => ({
  _id: record._id,
  seq: record.seq,
  status: record.status,
  action_kind: record.action_kind,
  target: record.target,
  shared_context_id: record.shared_context_id,
  proposed_by: record.proposed_by,
  approvals: record.approvals,
  status_timestamps: record.status_timestamps,
  created_at: record.created_at,
  updated_at: record.updated_at,
  decisions: (record.decisions ?? []).map((d) => ({
    principal_id: d.principal_id,
    decision: d.decision,
    reason: d.reason ?? null,
  })),
});

export const witnessLedgerEntry = (entry: ActionLedgerEntry): WitnessLedgerEntry => {
  const { detail, actor: _actor, ...rest } = entry;
  const reason = detail?.['reason'];
  return { ...rest, reason: typeof reason === 'string' ? reason : null };
};

export const witnessEvent = (event: ExternalEventRecord): WitnessEvent => {
  const { payload: _payload, ...rest } = event;
  return rest;
};

/**
 * The witness journal: every change to a record a witness reads (actions, ledger entries,
 * events, reconciliations, tasks, sessions, steps, deployments), appended by the repository
 * that wrote it, in slots 1, 2, 3, … with no gaps (a slot chain: each slot claimed by a
 * unique insert, the one exclusive write FerretDB has). It stands in for the change stream
 * FerretDB lacks: a reader that folded slots up to n learns of every later change by reading
 * slot n + 1 onward by `_id` (docs/witnesses.md, "The witness index").
 *
 * Appends queued while one is written share the next slot, so a busy process writes one
 * slot per round trip whatever its write rate.
 */
export function createWitnessJournalRepo(db: Db) {
  const col = db.collection<JournalEntry>('witness_journal');
  let known = 0;
  const waiting: { records: JournalRecord[]; settle: () => void; fail: (e: unknown) => void }[] =
    [];
  let writing = false;

  const probe = (slot: number) => col.findOne({ _id: slotKey(slot) });

  async function newestFrom(from: number): Promise<number> {
    const { slot } = await newestFilledSlot(async (n) => (n <= 0 || (await probe(n)) ? n : null), {
      slot: from,
      value: from,
    });
    known = Math.max(known, slot);
    return slot;
  }

  /** Inserts one slot after the newest; on a duplicate, finds the newest and tries again. */
  async function writeSlot(records: JournalRecord[]): Promise<void> {
    let candidate = known + 1;
    for (;;) {
      try {
        await col.insertOne({ _id: slotKey(candidate), at: new Date().toISOString(), records });
        known = Math.max(known, candidate);
        return;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        candidate = (await newestFrom(candidate)) + 1;
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
    append(records: JournalRecord[]): Promise<void> {
      if (records.length === 0) return Promise.resolve();
      const chunks: JournalRecord[][] = [];
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
    /**
     * Every stored record the journal covers, as the journal would carry it: what a reader
     * folds once before following the journal (records written before it existed, or whose
     * append was lost with a process, are in the collections).
     */
    async *stored(): AsyncGenerator<JournalRecord> {
      for await (const record of db.collection<ActionRecord>('external_actions').find(
        {},
        {
          projection: { parameters: 0, dry_run: 0, execution: 0 },
        },
      )) {
        yield { kind: 'action', record: witnessAction(record) };
      }
      for await (const entry of db.collection<ActionLedgerEntry>('action_ledger').find()) {
        yield { kind: 'ledger', record: witnessLedgerEntry(entry) };
      }
      for await (const event of db
        .collection<ExternalEventRecord>('external_events')
        .find({}, { projection: { payload: 0 } })) {
        yield { kind: 'event', record: witnessEvent(event) };
      }
      for await (const row of db
        .collection<StoredReconciliation>('external_reconciliations')
        .find({}, { projection: { outcome: 1, reconciled_at: 1 } })) {
        yield { kind: 'reconciliation', record: row };
      }
      for await (const task of db.collection<WorldTask>('world_tasks').find()) {
        yield { kind: 'task', record: task };
      }
      for await (const session of db.collection<SessionRecord>('sessions').find()) {
        yield { kind: 'session', record: session };
      }
      for await (const step of db
        .collection<{ _id: string }>('session_steps')
        .find({}, { projection: { _id: 1 } })) {
        yield { kind: 'step', record: step };
      }
      for await (const deployment of db
        .collection<WitnessDeployment>('substrate_deployments')
        .find({}, { projection: { stage: 1, updated_at: 1 } })) {
        yield { kind: 'deployment', record: deployment };
      }
    },
    /** The newest filled slot (0: none), found from the newest this process knows. */
    head: (): Promise<number> => newestFrom(known),
    /**
     * The slots after `slot`, in order, up to the newest, read by `_id`: one read when
     * nothing is new, then `READ_AHEAD` at a time.
     */
    async after(slot: number): Promise<JournalEntry[]> {
      const found: JournalEntry[] = [];
      let next = slot + 1;
      for (let width = 1; ; width = READ_AHEAD) {
        const window = await Promise.all(Array.from({ length: width }, (_, i) => probe(next + i)));
        const end = window.indexOf(null);
        found.push(...(window.slice(0, end === -1 ? width : end) as JournalEntry[]));
        if (end !== -1) break;
        next += width;
      }
      if (found.length > 0) known = Math.max(known, slot + found.length);
      return found;
    },
  };
}

export type WitnessJournalRepo = ReturnType<typeof createWitnessJournalRepo>;
