import type { Db } from 'mongodb';
import type { RepairStatus, RepairStrategy } from '../domain/repairs/schemas';
import { newestFilledSlot } from '../lib/slot-chain';
import type { ChainedSlot } from './chained-slot';
import { insertOnce, isDuplicateKey } from './mongo';
import { workflowRecords, type WorkflowRecord } from './workflow-records';
import { newestByIdPage } from './paging';
import type { FieldProvenance } from './world-external-state.repo';

/** One check of a diagnosis: what was compared, and whether it held. */
export interface RepairFinding {
  check: string;
  ok: boolean;
  detail: string;
}

/** One attribute or external-state field a plan changes (`removed`: the field goes). */
export interface FieldChange {
  from: unknown;
  to: unknown;
  removed?: true;
}

/** What a repair would write, and where the good copy comes from. */
export interface RepairPlan {
  object_id: string;
  /** The object's version the plan was made on: applying it writes `base_version + 1`. */
  base_version: number;
  /** The whole attribute set after the repair, when the attributes change. */
  attributes: Record<string, unknown> | null;
  /** The external state after the repair: a new revision on top of `base_revision`. */
  external_state: {
    base_revision: number;
    fields: Record<string, unknown>;
    provenance: Record<string, FieldProvenance>;
    generation: number;
    last_event_id: string | null;
  } | null;
  diff: { attributes: Record<string, FieldChange>; external_state: Record<string, FieldChange> };
  /** Where the good copy comes from: `history@3`, `checkpoint:chk_…`, `events:12`. */
  source: string;
  /** sha256 of the plan's canonical JSON (without this field). */
  digest: string;
}

export interface RepairStep {
  step: 'diagnose' | 'plan' | 'apply' | 'verify';
  outcome: 'done' | 'failed' | 'skipped';
  at: string;
  detail: string;
}

/** A repair's record, projected by its workflow (the single writer of its status). */
export interface RepairRecord extends WorkflowRecord {
  object_id: string;
  strategy: RepairStrategy;
  status: RepairStatus;
  reason: string | null;
  to_version: number | null;
  checkpoint_id: string | null;
  requested_by: { principal_id: string; key_id: string };
  steps: RepairStep[];
  findings: RepairFinding[];
  plan: RepairPlan | null;
  child_action_id: string | null;
  /** The object's version and external-state revision after the repair wrote them. */
  result: { version: number; external_revision: number | null } | null;
  status_timestamps: Partial<Record<RepairStatus, string>>;
  /** Position in the repair ledger once the repair ended (the certificate's chain). */
  ledger_seq: number | null;
}

/**
 * One ended repair in the hash-chained repair ledger: slots 1, 2, 3, … (`_id`), each
 * naming the digest of the one before, so changing any entry breaks every later link.
 */
export interface RepairLedgerEntry extends ChainedSlot {
  repair_id: string;
  object_id: string;
  strategy: RepairStrategy;
  outcome: RepairStatus;
  plan_digest: string | null;
  child_action_id: string | null;
  version: number | null;
  at: string;
}

/** Who holds an object's repair slot: one running repair per object. */
interface RepairClaim {
  _id: string;
  repair_id: string;
  at: string;
}

export function createRepairsRepo(db: Db) {
  const records = db.collection<RepairRecord>('repairs');
  const claims = db.collection<RepairClaim>('repair_claims');
  const ledger = db.collection<RepairLedgerEntry>('repair_ledger');
  const entry = (slot: number) => ledger.findOne({ _id: slot });
  return {
    ...workflowRecords(records),
    /** Repairs newest first, before `beforeId`, optionally of one object; `limit + 1` rows. */
    list(filter: { object_id?: string }, limit: number, beforeId?: string) {
      const query = filter.object_id ? { object_id: filter.object_id } : {};
      return newestByIdPage(records, query, limit, beforeId);
    },
    /**
     * Takes the object's repair slot for `repairId` (a unique insert: one winner); answers
     * null when taken, else the repair holding it.
     */
    async claim(objectId: string, repairId: string, now: string): Promise<string | null> {
      if (await insertOnce(claims, { _id: objectId, repair_id: repairId, at: now })) return null;
      return (await claims.findOne({ _id: objectId }))?.repair_id ?? null;
    },
    /** The repair holding the object's slot, if any. */
    holderOf: async (objectId: string): Promise<string | null> =>
      (await claims.findOne({ _id: objectId }))?.repair_id ?? null,
    /** Drops `repairId`'s slot on the object, and only its own (a taker's survives). */
    async release(objectId: string, repairId: string): Promise<void> {
      await claims.deleteOne({ _id: objectId, repair_id: repairId });
    },
    /** The newest ledger entry, or null before any (slot-chain reads by `_id`). */
    ledgerHead: async (): Promise<RepairLedgerEntry | null> =>
      (await newestFilledSlot(entry)).value,
    ledgerEntry: entry,
    /** Ledger entries in slot order from `fromSlot`, at most `limit`. */
    ledgerRange: (fromSlot: number, limit: number) =>
      ledger
        .find({ _id: { $gte: fromSlot } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray(),
    /** The ledger entries of one object, oldest first. */
    ledgerOf: (objectId: string) => ledger.find({ object_id: objectId }).sort({ _id: 1 }).toArray(),
    /**
     * Appends the repair's entry once: `build` gets the head and makes the entry for the next
     * slot. A lost race for the slot retries on the new head; a second append of the same
     * repair (an activity retry) finds the first (`repair_id` is unique).
     */
    async appendOnce(
      repairId: string,
      build: (head: RepairLedgerEntry | null) => RepairLedgerEntry,
    ): Promise<RepairLedgerEntry> {
      for (;;) {
        const next = build((await newestFilledSlot(entry)).value);
        try {
          await ledger.insertOne(next);
          return next;
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
          const mine = await ledger.findOne({ repair_id: repairId });
          if (mine) return mine;
        }
      }
    },
  };
}

export type RepairsRepo = ReturnType<typeof createRepairsRepo>;
