import type { Repos } from '../../store';
import type {
  ActionChange,
  WitnessAction,
  WitnessLedgerEntry,
} from '../../store/external-actions.repo';
import type {
  EventChange,
  WitnessEvent,
  WitnessReconciliation,
} from '../../store/external-events.repo';
import type { SessionRecord } from '../../store/sessions.repo';
import { STEP_LEASE_CLOCK_SKEW_MS, type StepLease } from '../../store/step-leases';
import type { WitnessDeployment } from '../../store/substrate-deployments.repo';
import type { WorldTask } from '../../store/world-tasks.repo';

/** Every kind of record change the witness journal carries (`store/witness-recorder.ts`). */
export type WitnessChange =
  | ActionChange
  | EventChange
  | { kind: 'task'; record: WorldTask }
  | { kind: 'session'; record: SessionRecord }
  /** One step (`<session_id>:<n>`): how stored steps are folded. */
  | { kind: 'step'; record: { _id: string } }
  | { kind: 'step_lease'; record: StepLease }
  | { kind: 'deployment'; record: WitnessDeployment };

/** The records of one shared context, by kind (ids). */
interface ContextMembers {
  sessions: Set<string>;
  actions: Set<string>;
  events: Set<string>;
  tasks: Set<string>;
  ledger: Set<string>;
}

/** A list kept sorted by one string key (times), for window reads by bisection. */
class SortedByKey<T> {
  readonly items: T[] = [];
  constructor(private readonly keyOf: (item: T) => string) {}

  insert(item: T): void {
    const key = this.keyOf(item);
    let at = this.items.length;
    // Records arrive nearly in time order: walk back from the end.
    while (at > 0 && this.keyOf(this.items[at - 1]) > key) at -= 1;
    this.items.splice(at, 0, item);
  }

  /** The items with `from` ≤ key < `to`, in key order. */
  between(from: string, to: string): T[] {
    return this.items.slice(this.bound(from), this.bound(to));
  }

  private bound(key: string): number {
    let [low, high] = [0, this.items.length];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.keyOf(this.items[middle]) < key) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

const addTo = <K, V>(index: Map<K, Set<V>>, key: K, value: V): void => {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(value);
};

/** Ledger events the affect witness counts (kept in time order). */
const OUTCOME_EVENTS = new Set(['executed', 'approved', 'failed', 'rejected', 'expired']);

/**
 * The records the witnesses read, folded in memory from the witness journal: each record's
 * newest version by id, grouped by shared context, by status or state, and the outcomes
 * in time order. Applying a record is idempotent and never goes back a version, so folding
 * the stored collections and then the journal from a slot read before them gives the same
 * state as folding the journal alone.
 */
export class WitnessFold {
  readonly actions = new Map<string, WitnessAction>();
  readonly ledger = new Map<string, WitnessLedgerEntry>();
  readonly events = new Map<string, WitnessEvent>();
  readonly reconciliations = new Map<string, WitnessReconciliation>();
  readonly tasks = new Map<string, WorldTask>();
  readonly sessions = new Map<string, SessionRecord>();
  /** The newest step number known of each session (steps are dense from 1). */
  readonly newestSteps = new Map<string, number>();
  /** Steps in all: the sum of `newestSteps`. */
  stepCount = 0;
  /** Sessions whose step leases may still be in force: their newest step must be probed. */
  readonly stepLeases = new Map<string, number>();
  readonly deployments = new Map<string, WitnessDeployment>();
  readonly actionsByStatus = new Map<string, Set<string>>();
  readonly tasksByState = new Map<string, Set<string>>();
  readonly deploymentsByStage = new Map<string, Set<string>>();
  readonly outcomes = new SortedByKey<WitnessLedgerEntry>((entry) => entry.at);
  readonly conflicts = new SortedByKey<WitnessReconciliation>((row) => row.reconciled_at);
  private readonly contexts = new Map<string, ContextMembers>();

  /** The context's member ids by kind, or undefined when no record names it. */
  context(contextId: string): ContextMembers | undefined {
    return this.contexts.get(contextId);
  }

  private member(contextId: string | null | undefined): ContextMembers | undefined {
    if (!contextId) return undefined;
    let members = this.contexts.get(contextId);
    if (!members) {
      members = {
        sessions: new Set(),
        actions: new Set(),
        events: new Set(),
        tasks: new Set(),
        ledger: new Set(),
      };
      this.contexts.set(contextId, members);
    }
    return members;
  }

  /** Re-files a changing record from its old group to its new one. */
  private static move(
    index: Map<string, Set<string>>,
    id: string,
    from: string | undefined,
    to: string,
  ) {
    if (from !== undefined && from !== to) index.get(from)?.delete(id);
    addTo(index, to, id);
  }

  /** Step `newest` of the session exists (so do all before it). */
  countSteps(sessionId: string, newest: number): void {
    const held = this.newestSteps.get(sessionId) ?? 0;
    if (!(newest > held)) return;
    this.newestSteps.set(sessionId, newest);
    this.stepCount += newest - held;
  }

  /**
   * Files `record` as the version of `id` held, unless the one held stays (`stays`: it is
   * newer, or records of this kind are written once), then re-files it in its `group` and
   * its shared context's `members`. What was held before, or undefined when it stayed.
   */
  private keep<T>(
    byId: Map<string, T>,
    id: string,
    record: T,
    stays: (held: T) => boolean,
    filing: {
      group?: { index: Map<string, Set<string>>; of: (version: T) => string };
      context?: { id: string | null | undefined; members: keyof ContextMembers };
    } = {},
  ): { held: T | undefined } | undefined {
    const held = byId.get(id);
    if (held && stays(held)) return undefined;
    byId.set(id, record);
    const { group, context } = filing;
    if (group) WitnessFold.move(group.index, id, held && group.of(held), group.of(record));
    if (context) this.member(context.id)?.[context.members].add(id);
    return { held };
  }

  apply(change: WitnessChange): void {
    const once = () => true;
    switch (change.kind) {
      case 'action': {
        const { record } = change;
        this.keep(this.actions, record._id, record, (held) => held.seq > record.seq, {
          group: { index: this.actionsByStatus, of: (version) => version.status },
          context: { id: record.shared_context_id, members: 'actions' },
        });
        return;
      }
      case 'ledger': {
        const { record } = change;
        const context = { id: record.shared_context_id, members: 'ledger' } as const;
        if (!this.keep(this.ledger, record._id, record, once, { context })) return;
        if (OUTCOME_EVENTS.has(record.event)) this.outcomes.insert(record);
        return;
      }
      case 'event': {
        const { record } = change;
        const context = { id: record.shared_context_id, members: 'events' } as const;
        this.keep(this.events, record.event_id, record, once, { context });
        return;
      }
      case 'reconciliation': {
        const { record } = change;
        if (!this.keep(this.reconciliations, record._id, record, once)) return;
        if (record.outcome === 'conflict') this.conflicts.insert(record);
        return;
      }
      case 'task': {
        const { record } = change;
        const kept = this.keep(
          this.tasks,
          record._id,
          record,
          (held) => held.version > record.version,
          {
            group: { index: this.tasksByState, of: (version) => version.state },
            context: { id: record.shared_context_id, members: 'tasks' },
          },
        );
        // A task may move to another context (an action's may not): it leaves the old one.
        const before = kept?.held?.shared_context_id;
        if (before && before !== record.shared_context_id) {
          this.contexts.get(before)?.tasks.delete(record._id);
        }
        return;
      }
      case 'session': {
        const { record } = change;
        const context = { id: record.shared_context_id, members: 'sessions' } as const;
        this.keep(this.sessions, record._id, record, () => false, { context });
        return;
      }
      case 'step': {
        const { _id } = change.record;
        const colon = _id.lastIndexOf(':');
        this.countSteps(_id.slice(0, colon), Number(_id.slice(colon + 1)));
        return;
      }
      case 'step_lease': {
        const { _id, until } = change.record;
        this.stepLeases.set(_id, Math.max(this.stepLeases.get(_id) ?? 0, until));
        return;
      }
      case 'deployment': {
        const { record } = change;
        const newer = (held: WitnessDeployment) => held.updated_at > record.updated_at;
        this.keep(this.deployments, record._id, record, newer, {
          group: { index: this.deploymentsByStage, of: (version) => version.stage },
        });
        return;
      }
    }
  }
}

type Deps = {
  repos: Pick<
    Repos,
    | 'witnessJournal'
    | 'externalActions'
    | 'externalEvents'
    | 'worldTasks'
    | 'sessions'
    | 'sessionSteps'
    | 'substrateDeployments'
  >;
};

/**
 * This process's witness index: the fold, kept current by reading the journal slots after
 * the last one folded (one read by `_id` when nothing changed). The first read folds the
 * stored collections once, from a journal slot read before them.
 *
 * A read waits for a catch-up that started after it asked, so a caller sees every change
 * whose write completed before its read began (its own included).
 */
/** Where witnesses get their fold: the process's index, or one fold held for one request. */
export interface WitnessSource {
  current(): Promise<WitnessFold>;
}

/**
 * The same catch-up for every witness one request computes (a self-report computes three),
 * so the request reads the journal once and its parts agree on the records.
 */
export function oneCatchUp<D extends { witnesses: WitnessSource }>(deps: D): D {
  const fold = deps.witnesses.current();
  return { ...deps, witnesses: { current: () => fold } };
}

export class WitnessIndex implements WitnessSource {
  private fold: WitnessFold | undefined;
  private folded = 0;
  private running: Promise<WitnessFold> | undefined;
  private queued: Promise<WitnessFold> | undefined;

  constructor(private readonly deps: Deps) {}

  /** The fold, caught up with every change stored before the call. */
  current(): Promise<WitnessFold> {
    if (!this.running) {
      this.running = this.catchUp().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.current();
      });
    return this.queued;
  }

  /** Lets the fold go (its memory with it); the next read folds again. Not mid-catch-up. */
  forget(): void {
    if (this.running) return;
    this.fold = undefined;
    this.folded = 0;
  }

  private async catchUp(): Promise<WitnessFold> {
    const journal = this.deps.repos.witnessJournal;
    for (;;) {
      if (!this.fold) [this.fold, this.folded] = await this.foldStored();
      const tail = await journal.after(this.folded);
      if (!tail.complete) {
        // Slots this process has not folded are gone (the journal's cap): fold again.
        this.fold = undefined;
        continue;
      }
      for (const entry of tail.entries) {
        // Each change was journaled after a write of its kind (`WitnessChange`).
        for (const change of entry.records) this.fold.apply(change as WitnessChange);
      }
      this.folded += tail.entries.length;
      await this.probeLeasedSessions(this.fold);
      return this.fold;
    }
  }

  /**
   * Steps are not journaled one by one: a writer journals a lease on the session and writes
   * its steps under it (`step-leases.ts`). So the newest step of every session whose lease
   * may be in force is read from its slot chain (one read by `_id` each when nothing is
   * new); a lease is forgotten after a probe that started once it had surely ended (its
   * end plus the clock skew allowed): any step written under it was stored by then, and a
   * step stored later is followed by a new lease.
   */
  private async probeLeasedSessions(fold: WitnessFold): Promise<void> {
    const started = Date.now();
    await Promise.all(
      [...fold.stepLeases].map(async ([sessionId, until]) => {
        const known = fold.newestSteps.get(sessionId) ?? 0;
        fold.countSteps(
          sessionId,
          await this.deps.repos.sessionSteps.newestNumber(sessionId, known),
        );
        if (
          started > until + STEP_LEASE_CLOCK_SKEW_MS &&
          fold.stepLeases.get(sessionId) === until
        ) {
          fold.stepLeases.delete(sessionId);
        }
      }),
    );
  }

  /**
   * A fold of the stored collections, and the journal slot read before them. The kept slots
   * are folded first: their changes are in the collections too, except the step leases still
   * in force, under which steps may be written after the collections are read.
   */
  private async foldStored(): Promise<[WitnessFold, number]> {
    const fold = new WitnessFold();
    const { repos } = this.deps;
    const { head: from, entries } = await repos.witnessJournal.kept();
    for (const entry of entries) {
      for (const change of entry.records) fold.apply(change as WitnessChange);
    }
    const scans: AsyncGenerator<WitnessChange>[] = [
      repos.externalActions.witnessScan(),
      repos.externalEvents.witnessScan(),
      repos.worldTasks.witnessScan(),
      repos.sessions.witnessScan(),
      repos.sessionSteps.witnessScan(),
      repos.substrateDeployments.witnessScan(),
    ];
    for (const scan of scans) for await (const change of scan) fold.apply(change);
    return [fold, from];
  }
}
