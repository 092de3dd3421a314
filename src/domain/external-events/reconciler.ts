import { LRUCache } from 'lru-cache';
import { Unavailable } from '../../lib/errors';
import type { Logger } from 'pino';
import type { Repos } from '../../store';
import { isoNow } from '../../lib/time';
import { appendedChange, type WorldHistoryEvent } from '../../store/world-history.repo';
import { revisionRecord, type ExternalState } from '../../store/world-external-state.repo';
import { mergeEventInto, ownedCopy, type FieldConflict, type MergeEvent } from './merge';
import { commitOf, initialState } from './revision-commit';
import { createWriteGate } from './write-gate';

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

/** One object's pass: the submissions it took from the object's queue, and how to load. */
interface Pass {
  objectId: string;
  queue: Submission[];
  batch: Submission[];
  useCache: boolean;
}

type Attempt =
  { done: true; results: EventReconciliation[][] } | { done: false; useCache: boolean };

/** A committed state to record: the history events of its revisions, the newest state. */
interface Recording {
  objectId: string;
  history: WorldHistoryEvent[];
  state: ExternalState;
}

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
 * - **Objects together**: the objects of one `reconcileMany` (an ingest batch) pass together,
 *   one gate step per round, and their writes go as one command per collection: one
 *   unordered insert of the revisions (a lost claim refuses only its own object, which
 *   retries), one of the history events, one `update` of the projections, one world
 *   revision advance, and one read by `_id` per object for the revision after it.
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
   * Records committed revisions: their world history events (one unordered insert; an event
   * stored already counts as appended), then the projections (`update`s of 50). The projection
   * advances the world revision once for both writes (a reader that cached before them sees
   * the revision move after both).
   */
  async function record(recordings: readonly Recording[]): Promise<void> {
    if (recordings.length === 0) return;
    const history = recordings.flatMap((r) => r.history);
    await deps.repos.worldHistory.appendManyOnce(history);
    await repo.projectManyById(
      recordings.map((r) => [r.objectId, r.state] as const),
      { history: history.flatMap((event) => appendedChange(event).history ?? []) },
    );
  }

  /**
   * Appends the history of every revision past each object's state and projects the newest;
   * then looks again, until no revision follows the one it projected (one read by `_id` per
   * object and step, all objects at once). The projection is written by `_id` alone
   * (FerretDB scans the collection for any other filter), so a writer racing another
   * process can put an older state back over a newer one; whoever wrote last finds the newer
   * revision here and projects it again, so the projection ends at the newest revision (it
   * may lag the chain for a moment, never lead it).
   */
  async function followChains(
    starts: ReadonlyMap<string, ExternalState>,
  ): Promise<Map<string, ExternalState>> {
    const latest = new Map(starts);
    let open = [...starts.keys()];
    while (open.length > 0) {
      const history = new Map<string, WorldHistoryEvent[]>();
      let walking = open;
      while (walking.length > 0) {
        const found = await repo.findRevisions(
          walking.map((id) => [id, latest.get(id)!.revision + 1] as const),
        );
        const moved: string[] = [];
        found.forEach((next, index) => {
          if (!next) return;
          const id = walking[index];
          history.set(id, [...(history.get(id) ?? []), next.history]);
          latest.set(id, next.state);
          moved.push(id);
        });
        walking = moved;
      }
      open = [...history.keys()];
      await record(
        open.map((id) => ({ objectId: id, history: history.get(id)!, state: latest.get(id)! })),
      );
    }
    return latest;
  }

  /** Each pass's object's newest state (null when there is no such object). */
  async function load(passes: readonly Pass[]): Promise<Map<string, Base | null>> {
    const bases = new Map<string, Base | null>();
    const unread: string[] = [];
    for (const pass of passes) {
      const cached = pass.useCache ? cache.get(pass.objectId) : undefined;
      if (cached) bases.set(pass.objectId, { state: cached, cached: true });
      else unread.push(pass.objectId);
    }
    if (unread.length === 0) return bases;
    const objects = await repo.findObjects(unread);
    const starts = new Map<string, ExternalState>();
    unread.forEach((id, index) => {
      const projected = objects[index]?.external_state;
      if (!objects[index]) bases.set(id, null);
      else if (projected && typeof projected.revision === 'number') {
        starts.set(id, { ...initialState(), ...projected });
      } else starts.set(id, initialState());
    });
    for (const [id, state] of await followChains(starts)) {
      cache.set(id, state);
      bases.set(id, { state, cached: false });
    }
    return bases;
  }

  /** Merges one pass's submissions, in order, into a copy of its base state. */
  function mergePass(pass: Pass, base: Base) {
    // One copy for the pass; `base.state` stays as loaded (the change is described against it).
    const merged = ownedCopy(base.state);
    const changers: string[] = [];
    const results = pass.batch.map((submission) =>
      submission.events.map((event): EventReconciliation => {
        const result = mergeEventInto(merged, event);
        if (result.changed) changers.push(event.event_id);
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
    return { merged, changers, results };
  }

  /**
   * One attempt at the passes of several objects, run in the write gate: each takes every
   * submission queued for its object by then (so requests that arrived while it waited
   * share its commit) and merges them in order; the changed objects commit one revision
   * each, together. One answer per pass: done, or to be tried again (a lost claim, or a
   * cached state another process has moved past).
   */
  async function attempt(passes: readonly Pass[]): Promise<Attempt[]> {
    for (const pass of passes) pass.batch.push(...pass.queue.splice(0, pass.queue.length));
    const bases = await load(passes);
    const answers: Attempt[] = passes.map(() => ({ done: false, useCache: false }));
    const unchanged: { index: number; next: readonly [string, number] }[] = [];
    const now = isoNow();
    const commits: {
      index: number;
      next: ExternalState;
      history: WorldHistoryEvent;
      results: EventReconciliation[][];
    }[] = [];
    passes.forEach((pass, index) => {
      const base = bases.get(pass.objectId);
      if (!base) {
        const results = pass.batch.map((s) => s.events.map(() => unmatched(pass.objectId)));
        answers[index] = { done: true, results };
        return;
      }
      const { merged, changers, results } = mergePass(pass, base);
      if (changers.length === 0) {
        answers[index] = { done: true, results };
        // Nothing to write: make sure the state judged against was the newest.
        if (base.cached) {
          unchanged.push({ index, next: [pass.objectId, base.state.revision + 1] });
        }
        return;
      }
      const { next, history } = commitOf(pass.objectId, base.state, merged, changers, now);
      const committed = results.map((list) => list.map((r) => ({ ...r, revision: next.revision })));
      commits.push({ index, next, history, results: committed });
    });
    if (unchanged.length > 0) {
      const later = await repo.findRevisions(unchanged.map((u) => u.next));
      unchanged.forEach(({ index }, position) => {
        if (later[position]) answers[index] = { done: false, useCache: false };
      });
    }
    if (commits.length === 0) return answers;
    const objectOf = (index: number) => passes[index].objectId;
    try {
      const won = await repo.claimRevisions(
        commits.map((c) => revisionRecord(objectOf(c.index), c.next, c.history, now)),
      );
      const winners = commits.filter((_, position) => won[position]);
      for (const c of commits) cache.delete(objectOf(c.index));
      await record(
        winners.map((c) => ({ objectId: objectOf(c.index), history: [c.history], state: c.next })),
      );
      // A newer revision from another process may have been projected under ours.
      const newest = await followChains(new Map(winners.map((c) => [objectOf(c.index), c.next])));
      for (const c of winners) {
        cache.set(objectOf(c.index), newest.get(objectOf(c.index)));
        answers[c.index] = { done: true, results: c.results };
      }
    } catch (error) {
      // Committed but not recorded: the next load follows the chain and finishes it.
      for (const c of commits) cache.delete(objectOf(c.index));
      throw error;
    }
    return answers;
  }

  /**
   * Runs passes over `owned` objects (whose queues this drain created) until every queue is
   * empty, then forgets each queue as it empties. The objects pass together: one gate step
   * per round; an object that must try again joins the next round.
   */
  async function drain(owned: [string, Submission[]][]): Promise<void> {
    let active = owned;
    while (active.length > 0) {
      let passes: Pass[] = active
        .filter(([, queue]) => queue.length > 0)
        .map(([objectId, queue]) => ({ objectId, queue, batch: [], useCache: true }));
      try {
        for (let round = 0; passes.length > 0 && round < MAX_ATTEMPTS; round += 1) {
          if (round > 0) await pause(round - 1);
          const answers = await writes.run(() => attempt(passes));
          const again: Pass[] = [];
          passes.forEach((pass, index) => {
            const answer = answers[index];
            if (answer.done) {
              pass.batch.forEach((submission, k) => submission.resolve(answer.results[k]));
              return;
            }
            pass.useCache = answer.useCache;
            again.push(pass);
          });
          passes = again;
        }
        for (const pass of passes) {
          const error = new Unavailable(
            `external state of ${pass.objectId} is changing too fast to reconcile; retry`,
          );
          deps.logger.error({ err: error, object_id: pass.objectId }, 'external state pass failed');
          for (const submission of pass.batch) submission.reject(error);
        }
      } catch (error) {
        deps.logger.error(
          { err: error, object_ids: passes.map((pass) => pass.objectId) },
          'external state pass failed',
        );
        for (const pass of passes) for (const submission of pass.batch) submission.reject(error);
      }
      active = active.filter(([objectId, queue]) => {
        if (queue.length > 0) return true;
        queues.delete(objectId);
        return false;
      });
    }
  }

  /**
   * Reconciles each group's events (in their order) against its object; one result per
   * event, as if each had been reconciled alone in that order. Objects with a pass running
   * already join its queue; the others pass together.
   */
  function reconcileMany(
    groups: readonly (readonly [string, MergeEvent[]])[],
  ): Promise<EventReconciliation[][]> {
    const owned: [string, Submission[]][] = [];
    const answers = groups.map(
      ([objectId, events]) =>
        new Promise<EventReconciliation[]>((resolve, reject) => {
          const submission = { events, resolve, reject };
          const queue = queues.get(objectId);
          if (queue) {
            queue.push(submission);
            return;
          }
          const fresh = [submission];
          queues.set(objectId, fresh);
          owned.push([objectId, fresh]);
        }),
    );
    if (owned.length > 0) void drain(owned);
    return Promise.all(answers);
  }

  return {
    /** The process's gate for ingest writes (see `WRITE_GATE_WIDTH`). */
    writes,
    reconcileMany,
    /**
     * Reconciles events (in this order) against one object; resolves to one result per
     * event, as if each had been reconciled alone in that order.
     */
    reconcile: async (objectId: string, events: MergeEvent[]): Promise<EventReconciliation[]> =>
      (await reconcileMany([[objectId, events]]))[0],
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

const pause = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 + attempt * 4)));
