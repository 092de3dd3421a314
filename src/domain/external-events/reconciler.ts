import { LRUCache } from 'lru-cache';
import stringify from 'safe-stable-stringify';
import { Unavailable } from '../../lib/errors';
import type { Logger } from 'pino';
import type { Repos } from '../../store';
import { newId } from '../../lib/ids';
import { isoNow } from '../../lib/time';
import { appendedChange, type WorldHistoryEvent } from '../../store/world-history.repo';
import {
  revisionRecord,
  type ExternalState,
  type FieldProvenance,
} from '../../store/world-external-state.repo';
import { settledConditions } from './conditions';
import { mergeEventInto, ownedCopy, type FieldConflict, type MergeEvent } from './merge';

/** World history kind of a committed change of an object's external state. */
export const EXTERNAL_STATE_CHANGED = 'object.external_state_changed';
/** Rounds a pass may lose to writers in other processes before giving up (503). */
const MAX_ATTEMPTS = 25;
/** Object states kept in memory per process (a cache: the revision chain is the truth). */
const CACHED_OBJECTS = 2_000;
/**
 * Ingest writes in flight per process. SQLite takes one writer at a time and FerretDB answers
 * concurrent writers with slow retries; two at a time lets FerretDB prepare one write while
 * the other commits. In the events benchmark (10 batches in flight) widths 1 and 3 ingest
 * fewer events a second than 2.
 */
const WRITE_GATE_WIDTH = 2;
/** Event ids listed in one history event. */
const HISTORY_EVENT_IDS = 20;

/** What reconciling one event against its object did. */
export interface EventReconciliation {
  outcome: 'applied' | 'stale' | 'conflict' | 'unmatched';
  applied_fields: string[];
  stale_fields: string[];
  conflicts: FieldConflict[];
  reason: string | null;
  /** Object generation right after the event (null when unmatched). */
  generation: number | null;
  /** Revision the pass committed, or read when it changed nothing (null when unmatched). */
  revision: number | null;
}

export type Reconciler = ReturnType<typeof createReconciler>;

interface Submission {
  events: MergeEvent[];
  resolve(results: EventReconciliation[]): void;
  reject(error: unknown): void;
}

interface Base {
  state: ExternalState;
  /** True when `state` came from this process's cache and may lag other processes. */
  cached: boolean;
}

const initialState = (): ExternalState => ({
  revision: 0,
  fields: {},
  provenance: {},
  generation: 0,
  observed_generation: 0,
  conditions: [],
  last_event_id: null,
  updated_at: '',
});

/**
 * Reconciles events into objects' external state.
 *
 * - **Across processes** a pass commits by inserting revision r + 1 of the object's chain
 *   (`world_external_state_revisions`, `_id` `<object>:<r+1>`). A writer that loses the
 *   insert re-reads and re-merges; the merge is a pure function of the set of events, so
 *   nothing is lost and the result does not depend on who won.
 * - **Inside a process** the passes of one object run one at a time, and a pass takes every
 *   event queued for the object when its turn in the write gate comes (group commit):
 *   concurrent requests about one object share one commit.
 * - After the commit the pass appends one world history event and projects the state onto
 *   the object. A pass that dies in between is completed by the next reader of the chain
 *   (the history event is stored in the revision and appended once by id).
 */
export function createReconciler(deps: {
  repos: Pick<Repos, 'worldExternalState' | 'worldHistory' | 'worldObjects'>;
  logger: Logger;
}) {
  const repo = deps.repos.worldExternalState;
  const queues = new Map<string, Submission[]>();
  const cache = new LRUCache<string, ExternalState>({ max: CACHED_OBJECTS });
  const writes = createWriteGate(WRITE_GATE_WIDTH);

  /**
   * Records a committed revision: its world history event, then the projection. The
   * projection advances the world revision once for both writes (a reader that cached
   * before them sees the revision move after both), one insert fewer per pass.
   */
  async function record(objectId: string, history: WorldHistoryEvent[], state: ExternalState) {
    for (const event of history) {
      await deps.repos.worldHistory.appendOnce(event, { advance: false });
    }
    await repo.projectById(objectId, state, {
      history: history.flatMap((event) => appendedChange(event).history ?? []),
    });
  }

  /**
   * Appends the history of every revision past `state` and projects the newest; then looks
   * again, until no revision follows the one it projected. The projection is written by
   * `_id` alone (FerretDB scans the collection for any other filter), so a writer racing
   * another process can put an older state back over a newer one; whoever wrote last finds
   * the newer revision here and projects it again, so the projection ends at the newest
   * revision (it may lag the chain for a moment, never lead it).
   */
  async function followChain(objectId: string, state: ExternalState): Promise<ExternalState> {
    let latest = state;
    for (;;) {
      const history: WorldHistoryEvent[] = [];
      for (;;) {
        const next = await repo.findRevision(objectId, latest.revision + 1);
        if (!next) break;
        history.push(next.history);
        latest = next.state;
      }
      if (history.length === 0) return latest;
      await record(objectId, history, latest);
    }
  }

  /** The object's newest state; null when there is no such object. */
  async function load(objectId: string, useCache: boolean): Promise<Base | null> {
    const cached = useCache ? cache.get(objectId) : undefined;
    if (cached) return { state: cached, cached: true };
    const object = await repo.findObject(objectId);
    if (!object) return null;
    const projected = object.external_state;
    const start =
      projected && typeof projected.revision === 'number'
        ? { ...initialState(), ...projected }
        : initialState();
    const state = await followChain(objectId, start);
    cache.set(objectId, state);
    return { state, cached: false };
  }

  type Attempt =
    { done: true; results: EventReconciliation[][] } | { done: false; useCache: boolean };

  /**
   * One attempt at a pass, run in the write gate: it takes every submission queued for the
   * object by then (so requests that arrived while it waited share its commit), merges them
   * in order and commits one revision.
   */
  async function attempt(
    objectId: string,
    queue: Submission[],
    batch: Submission[],
    useCache: boolean,
  ): Promise<Attempt> {
    batch.push(...queue.splice(0, queue.length));
    const base = await load(objectId, useCache);
    if (!base) {
      return { done: true, results: batch.map((s) => s.events.map(() => unmatched(objectId))) };
    }
    // One copy for the pass; `base.state` stays as loaded (the change is described against it).
    const merged = ownedCopy(base.state);
    let changed = false;
    const changers: string[] = [];
    const results = batch.map((submission) =>
      submission.events.map((event): EventReconciliation => {
        const result = mergeEventInto(merged, event);
        if (result.changed) {
          changed = true;
          changers.push(event.event_id);
        }
        return {
          outcome: result.outcome,
          applied_fields: result.applied_fields,
          stale_fields: result.stale_fields,
          conflicts: result.conflicts,
          reason: result.reason,
          generation: merged.generation,
          revision: base.state.revision,
        };
      }),
    );
    if (!changed) {
      // Nothing to write: make sure the state judged against was the newest.
      if (base.cached && (await repo.findRevision(objectId, base.state.revision + 1))) {
        return { done: false, useCache: false };
      }
      return { done: true, results };
    }
    const now = isoNow();
    const revision = base.state.revision + 1;
    const next: ExternalState = {
      revision,
      fields: merged.fields,
      provenance: merged.provenance,
      generation: merged.generation,
      observed_generation: merged.generation,
      conditions: settledConditions(
        {
          generation: merged.generation,
          provenance: merged.provenance,
          conditions: base.state.conditions,
        },
        now,
      ),
      last_event_id: merged.last_event_id,
      updated_at: now,
    };
    const history: WorldHistoryEvent = {
      _id: newId('evt'),
      kind: EXTERNAL_STATE_CHANGED,
      object_id: objectId,
      at: now,
      change: describeChange(base.state, next, changers),
    };
    const won = await repo.claimRevision(revisionRecord(objectId, next, history, now));
    if (!won) {
      cache.delete(objectId);
      return { done: false, useCache: false };
    }
    let newest: ExternalState;
    try {
      await record(objectId, [history], next);
      // A newer revision from another process may have been projected under ours.
      newest = await followChain(objectId, next);
    } catch (error) {
      // Committed but not recorded: the next load follows the chain and finishes it.
      cache.delete(objectId);
      throw error;
    }
    cache.set(objectId, newest);
    return {
      done: true,
      results: results.map((list) => list.map((result) => ({ ...result, revision }))),
    };
  }

  /** Runs passes until the object's queue is empty, then forgets the queue. */
  async function drain(objectId: string, queue: Submission[]): Promise<void> {
    while (queue.length > 0) {
      const batch: Submission[] = [];
      try {
        let useCache = true;
        let outcome: Attempt | undefined;
        for (let round = 0; round < MAX_ATTEMPTS; round += 1) {
          outcome = await writes.run(() => attempt(objectId, queue, batch, useCache));
          if (outcome.done) break;
          useCache = outcome.useCache;
          await pause(round);
        }
        if (!outcome?.done) {
          throw new Unavailable(
            `external state of ${objectId} is changing too fast to reconcile; retry`,
          );
        }
        const { results } = outcome;
        batch.forEach((submission, index) => submission.resolve(results[index]));
      } catch (error) {
        deps.logger.error({ err: error, object_id: objectId }, 'external state pass failed');
        for (const submission of batch) submission.reject(error);
      }
    }
    queues.delete(objectId);
  }

  return {
    /** The process's gate for ingest writes (see `WRITE_GATE_WIDTH`). */
    writes,
    /**
     * Reconciles events (in this order) against one object; resolves to one result per
     * event, as if each had been reconciled alone in that order.
     */
    reconcile(objectId: string, events: MergeEvent[]): Promise<EventReconciliation[]> {
      return new Promise((resolve, reject) => {
        const queue = queues.get(objectId);
        if (queue) {
          queue.push({ events, resolve, reject });
          return;
        }
        const fresh: Submission[] = [{ events, resolve, reject }];
        queues.set(objectId, fresh);
        void drain(objectId, fresh);
      });
    },
  };
}

/** Runs async steps at most `width` at a time, starting them in arrival order. */
export function createWriteGate(width: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };
  return {
    async run<T>(step: () => Promise<T>): Promise<T> {
      if (running < width) running += 1;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await step();
      } finally {
        release();
      }
    },
  };
}

export const unmatched = (ref: string | null): EventReconciliation => ({
  outcome: 'unmatched',
  applied_fields: [],
  stale_fields: [],
  conflicts: [],
  reason: ref ? `no world object ${ref}` : 'the event names no world object',
  generation: null,
  revision: null,
});

/** The world history `change` of one committed revision. */
function describeChange(before: ExternalState, after: ExternalState, changers: string[]) {
  const fields: Record<string, { from: unknown; to: unknown }> = {};
  for (const [field, value] of Object.entries(after.fields)) {
    const had = Object.prototype.hasOwnProperty.call(before.fields, field);
    if (!had || stringify(before.fields[field]) !== stringify(value)) {
      fields[field] = { from: had ? before.fields[field] : null, to: value };
    }
  }
  const disputed = Object.entries(after.provenance)
    .filter(
      ([field, p]: [string, FieldProvenance]) => p.conflict && !before.provenance[field]?.conflict,
    )
    .map(([field]) => field);
  return {
    source: 'external_events',
    revision: after.revision,
    generation: { from: before.generation, to: after.generation },
    fields,
    newly_disputed_fields: disputed,
    event_count: changers.length,
    event_ids: changers.slice(0, HISTORY_EVENT_IDS),
  };
}

const pause = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 + attempt * 4)));
