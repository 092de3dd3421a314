import { countBy } from './count-by';
import type { Db, Filter } from 'mongodb';
import type { ActionStatus } from '../domain/external-actions/schemas';
import type { ActionRecord } from './external-action-record';
import { isDuplicateKey, replaceIfNewer } from './mongo';
import { newestByIdPage, toPage, type PagePosition } from './paging';
import { byIdReader } from './reads-by-id';
import type { SealedRecords } from './sealed-records';
import type { RecordSealStamp } from '../signing/record-seal';
import { RecordIntegrityError } from '../lib/errors';

export type * from './external-action-record';

/** One transition of one action; each entry carries the digest of the one before it. */
export interface ActionLedgerEntry {
  /** `<action_id>:<seq>` */
  _id: string;
  action_id: string;
  seq: number;
  at: string;
  event: string;
  status: ActionStatus;
  action_kind: ActionRecord['action_kind'];
  shared_context_id: string | null;
  actor: { principal_id: string; key_id: string } | null;
  detail: Record<string, unknown>;
  /** The workflow run that recorded it (Temporal's word to the activity); null: the api. */
  run_id?: string | null;
  prev_digest: string | null;
  digest: string;
  /**
   * The service's signature over `_id` and `digest` (docs/actions.md); not covered by the
   * digest. Absent on entries written before sealing existed.
   */
  seal?: { key_id: string; signature: string };
}

/**
 * The fields every partial read of an action keeps (a list entry, a witness's copy): the
 * projection's parameters, plan and execution run up to 64 KiB each, and neither needs them.
 */
type ActionSummaryField =
  | '_id'
  | 'seq'
  | 'status'
  | 'action_kind'
  | 'target'
  | 'shared_context_id'
  | 'proposed_by'
  | 'approvals'
  | 'created_at'
  | 'updated_at';

/**
 * What a list shows of an action: the projection without its parameters, plan, decisions
 * and execution, with the plan's digest and one-line diff kept.
 */
export type ActionListEntry = Pick<
  ActionRecord,
  | ActionSummaryField
  | 'reason'
  | 'bounds'
  | 'rule'
  | 'expires_at'
  | 'executable_at'
  | 'workflow_id'
  | 'approved_by'
  | 'eligible'
> & { diff_summary: string | null; plan_digest: string | null };

/** Filters of the action listing (current status); `awaiting` is the inbox of one principal. */
export interface ActionListFilter {
  status?: string;
  action_kind?: string;
  shared_context_id?: string;
  proposed_by?: string;
  awaiting?: { principal_id: string; role: string };
}

export interface ActionLedgerFilter {
  status?: string;
  action_kind?: string;
  shared_context_id?: string;
  action_id?: string;
}

/** What the witnesses read of an action: its projection without parameters, plan or execution. */
export type WitnessAction = Pick<ActionRecord, ActionSummaryField | 'status_timestamps'> & {
  decisions: { principal_id: string; decision: string; reason: string | null }[];
};
/** What the witnesses read of a ledger entry (the reason of a failure, not the whole detail). */
export type WitnessLedgerEntry = Omit<ActionLedgerEntry, 'detail' | 'actor'> & {
  reason: string | null;
};
export type ActionChange =
  { kind: 'action'; record: WitnessAction } | { kind: 'ledger'; record: WitnessLedgerEntry };

export const witnessAction = (record: ActionRecord): ActionChange => ({
  kind: 'action',
  record: {
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
  },
});

export const witnessLedgerEntry = (entry: ActionLedgerEntry): ActionChange => {
  const { detail, actor: _actor, ...rest } = entry;
  const reason = detail?.['reason'];
  return {
    kind: 'ledger',
    record: { ...rest, reason: typeof reason === 'string' ? reason : null },
  };
};

/**
 * Where an action's ledger ended it: written with its final entry, so whether an action has
 * ended is one read by `_id`, for the api before it signs any decision (docs/actions.md,
 * "Resets"). The ledger stays what it says; this only points at its final entry.
 */
export interface ActionEnd {
  /** The action id. */
  _id: string;
  status: ActionStatus;
  seq: number;
  digest: string;
  /** The record seal over status, seq and digest (`sealed-records.ts`). */
  seal?: RecordSealStamp;
}

/** An end whose seal holds, with the ledger entry it names (which says the same). */
export interface CheckedActionEnd extends ActionEnd {
  entry: ActionLedgerEntry;
}

export function createExternalActionsRepo(db: Db, sealed: SealedRecords) {
  const actions = db.collection<ActionRecord>('external_actions');
  const ends = db.collection<ActionEnd>('action_ends');
  const ledger = db.collection<ActionLedgerEntry>('action_ledger');
  const readByIds = byIdReader(db);
  /** The entry as stored, and whether this call wrote it (false: a retry found it). */
  const insertOnce = async (
    entry: ActionLedgerEntry,
  ): Promise<{ stored: ActionLedgerEntry; fresh: boolean }> => {
    try {
      await ledger.insertOne(entry);
      return { stored: entry, fresh: true };
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const existing = await ledger.findOne({ _id: entry._id });
      if (!existing) throw error;
      return { stored: existing, fresh: false };
    }
  };
  /**
   * Entries of one action from `seq` on, two `_id` reads at a time, until one is missing:
   * an action's entries are few, and `_id` is what FerretDB looks up without a scan.
   */
  const walkFrom = async (actionId: string, seq: number): Promise<ActionLedgerEntry[]> => {
    const entries: ActionLedgerEntry[] = [];
    for (let at = seq; ; at += 2) {
      const pair = await Promise.all([
        ledger.findOne({ _id: `${actionId}:${at}` }),
        ledger.findOne({ _id: `${actionId}:${at + 1}` }),
      ]);
      for (const entry of pair) {
        if (!entry) return entries;
        entries.push(entry);
      }
    }
  };
  return {
    /** Actions per status, and `total`. */
    countByStatus: () => countBy(actions, 'status'),
    findById: (id: string) => actions.findOne({ _id: id }),
    /** Writes a snapshot unless a newer one is stored (`replaceIfNewer`). */
    async project(record: ActionRecord): Promise<void> {
      await replaceIfNewer(actions, record);
    },
    /**
     * Actions newest first (ULID `_id` descending) before `beforeId`; `limit + 1` rows. What
     * awaits approval is read from the inbox (`action-inbox.repo.ts`) instead.
     */
    list(filter: ActionListFilter, limit: number, beforeId?: string) {
      const clauses: Filter<ActionRecord>[] = [];
      if (filter.status) clauses.push({ status: filter.status as ActionRecord['status'] });
      if (filter.action_kind) {
        clauses.push({ action_kind: filter.action_kind as ActionRecord['action_kind'] });
      }
      if (filter.shared_context_id) clauses.push({ shared_context_id: filter.shared_context_id });
      if (filter.proposed_by) clauses.push({ 'proposed_by.principal_id': filter.proposed_by });
      const query: Filter<ActionRecord> = clauses.length === 0 ? {} : { $and: clauses };
      return newestByIdPage(actions, query, limit, beforeId);
    },
    /** Appends a ledger entry once; a retry returns the entry already written. */
    async appendOnce(entry: ActionLedgerEntry): Promise<ActionLedgerEntry> {
      const { stored } = await insertOnce(entry);
      return stored;
    },
    /**
     * Writes a ledger entry once: the entry as stored, and whether this call wrote it (false:
     * a retry found it there). Its witness change goes with `projectTransitions`'.
     */
    insertLedgerOnce: insertOnce,
    /**
     * Recorded transitions, after their ledger entries were written: the snapshot of the
     * last one (`ledger_head` its entry's digest), which it answers. `extra` writes run
     * beside the snapshot.
     *
     * The workflow records its transitions one after another, so when this call wrote the
     * entries (`fresh`) no later snapshot can be stored yet and the snapshot is written
     * without a read; only a retry reads first, so it never takes a newer one back
     * (`replaceIfNewer`).
     */
    async projectTransitions(
      entries: ActionLedgerEntry[],
      snapshot: Omit<ActionRecord, 'ledger_head'>,
      fresh: boolean,
      extra: (record: ActionRecord) => Promise<unknown>,
    ): Promise<ActionRecord> {
      const head = entries[entries.length - 1];
      if (!head) throw new Error('projectTransitions needs at least one ledger entry');
      const record: ActionRecord = { ...snapshot, ledger_head: head.digest };
      await Promise.all([
        fresh
          ? actions.replaceOne({ _id: record._id }, record, { upsert: true })
          : replaceIfNewer(actions, record),
        extra(record),
      ]);
      return record;
    },
    /** Ledger entries, newest first, keyset-paged. */
    async listLedger(filter: ActionLedgerFilter, limit: number, after?: PagePosition) {
      const query: Filter<ActionLedgerEntry> = {
        ...(filter.status ? { status: filter.status as ActionLedgerEntry['status'] } : {}),
        ...(filter.action_kind
          ? { action_kind: filter.action_kind as ActionLedgerEntry['action_kind'] }
          : {}),
        ...(filter.shared_context_id ? { shared_context_id: filter.shared_context_id } : {}),
        ...(filter.action_id ? { action_id: filter.action_id } : {}),
        ...afterLedgerPosition(after),
      };
      // Newest first across actions; within an action (and a millisecond) by its sequence,
      // never by the text of `<action_id>:<seq>` (which puts `:9` before `:12`).
      const rows = await ledger
        .find(query)
        .sort({ at: -1, action_id: -1, seq: -1 })
        .limit(limit + 1)
        .toArray();
      return toPage(rows, limit);
    },
    /** Actions whose target is this world object, newest first, at most `limit`. */
    aboutObject: (objectId: string, limit: number) =>
      actions
        .find({ 'target.world_object_ref': objectId })
        .sort({ _id: -1 })
        .limit(limit)
        .toArray(),
    /** Every stored action and ledger entry, as the witness journal carries them. */
    async *witnessScan(): AsyncGenerator<ActionChange> {
      const heavy = { parameters: 0, dry_run: 0, execution: 0 } as const;
      for await (const record of actions.find({}, { projection: heavy })) {
        yield witnessAction(record);
      }
      for await (const entry of ledger.find()) yield witnessLedgerEntry(entry);
    },
    /** One ledger entry by its id (`<action_id>:<seq>`), or null. */
    ledgerEntry: (entryId: string) => ledger.findOne({ _id: entryId }),
    /**
     * Points the projection at the workflow's current run (after a reset): one field set by
     * `_id`, so it never takes back anything the workflow projected.
     */
    async followRun(actionId: string, runId: string): Promise<void> {
      await actions.updateOne({ _id: actionId }, { $set: { run_id: runId } });
    },
    /** Records where the ledger ended an action; the first end stands (a final is final). */
    async markEnded(end: ActionEnd): Promise<void> {
      try {
        await ends.insertOne(sealed.sealed('action_ends', end));
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    },
    /**
     * Where the ledger ended the action, or null while it has not. An end is believed only
     * when its seal holds and the ledger holds the entry it names, as it names it (the
     * caller checks that entry's own seal); otherwise it is refused
     * (`RecordIntegrityError`): a made-up end would stop every decision on a live action.
     */
    async endOf(actionId: string): Promise<CheckedActionEnd | null> {
      const end = await sealed.checked('action_ends', await ends.findOne({ _id: actionId }));
      if (!end) return null;
      const entry = await ledger.findOne({ _id: `${actionId}:${end.seq}` });
      if (entry && entry.digest === end.digest && entry.status === end.status) {
        return { ...end, entry };
      }
      const problem = `it names ledger entry ${end.seq} (${end.status}), which the ledger does not hold as named`;
      sealed.report({ collection: 'action_ends', record_id: actionId, problem });
      throw new RecordIntegrityError(
        'action_ends',
        actionId,
        problem,
        `end record of action ${actionId}`,
      );
    },
    /**
     * The newest entry of one action, or null before its first: read by `_id` (a filter on
     * another field is a scan of every action's entries on FerretDB), forward from `fromSeq`
     * (the projection's `seq` is a good start; 1 when unknown) until an entry is missing.
     */
    async newestEntry(actionId: string, fromSeq = 1): Promise<ActionLedgerEntry | null> {
      const entries = await walkFrom(actionId, Math.max(1, fromSeq));
      if (entries.length > 0) return entries[entries.length - 1];
      // The start was past the newest (a projection ahead of nothing, or edited): from 1.
      return fromSeq > 1 ? ((await walkFrom(actionId, 1)).at(-1) ?? null) : null;
    },
    /** The entries of one action from `seq` on, in order, read by `_id` until one is missing. */
    entriesFrom: (actionId: string, seq: number) => walkFrom(actionId, Math.max(1, seq)),
    /**
     * The ids among these actions whose projection holds one of `statuses`. Read by `_id`
     * the server's way (`reads-by-id.ts`): on FerretDB an `$in` decodes every stored action,
     * and the reset-run watcher asks this on every service-monitor tick.
     */
    async withStatusIn(
      actionIds: string[],
      statuses: readonly ActionRecord['status'][],
    ): Promise<Set<string>> {
      const rows = await readByIds(actions, actionIds, { status: 1 });
      return new Set(
        rows.flatMap((row) => (row && statuses.includes(row.status) ? [row._id] : [])),
      );
    },
    /** Every entry of one action, in order. */
    entriesOf: (actionId: string) =>
      ledger.find({ action_id: actionId }).sort({ seq: 1 }).toArray(),
  };
}

export type ExternalActionsRepo = ReturnType<typeof createExternalActionsRepo>;

/** Strictly after a ledger position (`at`, then the action, then its `seq`), newest first. */
function afterLedgerPosition(position: PagePosition | undefined): Filter<ActionLedgerEntry> {
  if (!position) return {};
  const split = position.id.lastIndexOf(':');
  const actionId = position.id.slice(0, split);
  const seq = Number(position.id.slice(split + 1));
  return {
    $or: [
      { at: { $lt: position.at } },
      { at: position.at, action_id: { $lt: actionId } },
      { at: position.at, action_id: actionId, seq: { $lt: Number.isSafeInteger(seq) ? seq : 0 } },
    ],
  };
}
