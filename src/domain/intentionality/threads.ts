import { createHash } from 'node:crypto';
import type { DomainInfra } from '../infra';
import { NotFound, notFound } from '../../lib/errors';
import {
  decodePageCursor,
  decodeIdCursor,
  encodePageCursor,
  encodeIdCursor,
  type PagePosition,
} from '../../store/paging';
import type { WitnessAction } from '../../store/external-actions.repo';
import type { WitnessEvent } from '../../store/external-events.repo';
import type { ThreadSubject } from '../../store/threads.repo';
import type { WorldHistoryEvent } from '../../store/world-history.repo';
import { loadContext } from '../shared-contexts/records';
import { aboutnessOf } from '../shared-contexts/views';
import { MAX_WITNESS_RECORDS } from '../witnesses/inputs';

type Deps = Pick<DomainInfra, 'repos' | 'witnesses'>;

/** One record in a thread, time-ordered. */
export interface ThreadEntry {
  at: string;
  kind: 'history' | 'action' | 'event' | 'task' | 'session' | 'repair';
  id: string;
  /** What it is, in a few words (`object.updated`, `webhook.post executed`, ...). */
  what: string;
}

const subjectKey = (subject: ThreadSubject): string =>
  subject.kind === 'context' ? `ctx:${subject.id}` : subject.id;

/** `thr_` + the first 32 hex digits of sha256 of the subject (`obj_…` or `ctx:<id>`). */
export const threadIdOf = (subject: ThreadSubject): string =>
  `thr_${createHash('sha256').update(subjectKey(subject)).digest('hex').slice(0, 32)}`;

/** A thread as a list names it, registered so its id can be read back. */
async function issue(deps: Deps, subjects: { subject: ThreadSubject; name: string }[]) {
  const threads = subjects.map(({ subject, name }) => ({
    thread_id: threadIdOf(subject),
    subject,
    name,
  }));
  await deps.repos.threads.register(threads);
  return threads;
}

/** Every history event about an object (its own, and those naming it among their refs). */
async function historyOf(deps: Deps, objectId: string): Promise<WorldHistoryEvent[]> {
  const events: WorldHistoryEvent[] = [];
  let after: PagePosition | undefined;
  for (;;) {
    const page = await deps.repos.worldHistory.list({ object_id: objectId }, 500, after);
    events.push(...page.items);
    const last = page.items[page.items.length - 1];
    if (!page.next_cursor || !last || events.length >= MAX_WITNESS_RECORDS) return events;
    after = { at: last.at, id: last._id };
  }
}

const actionEntry = (a: WitnessAction): ThreadEntry => ({
  at: a.created_at,
  kind: 'action',
  id: a._id,
  what: `${a.action_kind} ${a.status}`,
});
const eventEntry = (e: WitnessEvent): ThreadEntry => ({
  at: e.received_at,
  kind: 'event',
  id: e.event_id,
  what: e.event_type,
});

/** The records about a world object, oldest first. */
async function objectEntries(deps: Deps, objectId: string): Promise<ThreadEntry[]> {
  const [history, actions, events, repairs] = await Promise.all([
    historyOf(deps, objectId),
    deps.repos.externalActions.aboutObject(objectId, MAX_WITNESS_RECORDS),
    deps.repos.externalEvents.list({ world_object_ref: objectId }, MAX_WITNESS_RECORDS),
    deps.repos.repairs.list({ object_id: objectId }, MAX_WITNESS_RECORDS),
  ]);
  return [
    ...history.map((e) => ({ at: e.at, kind: 'history' as const, id: e._id, what: e.kind })),
    ...actions.map(actionEntry),
    ...events.items.map(eventEntry),
    ...repairs.map((r) => ({
      at: r.created_at,
      kind: 'repair' as const,
      id: r._id,
      what: `repair ${r.strategy} ${r.status}`,
    })),
  ];
}

/** The records of a shared context, oldest first. */
async function contextEntries(deps: Deps, contextId: string): Promise<ThreadEntry[]> {
  const records = await loadContext(deps, contextId);
  return [
    ...records.sessions.map((s) => ({
      at: s.created_at,
      kind: 'session' as const,
      id: s._id,
      what: `session (${s.continuity_mode})`,
    })),
    ...records.actions.map(actionEntry),
    ...records.events.map(eventEntry),
    ...records.tasks.map((t) => ({
      at: t.created_at,
      kind: 'task' as const,
      id: t._id,
      what: `task ${t.state}: ${t.title}`,
    })),
  ];
}

const byTime = (a: ThreadEntry, b: ThreadEntry): number =>
  a.at.localeCompare(b.at) || a.id.localeCompare(b.id);

/**
 * `GET /v1/intentionality/threads`: with `object_id`, that object's thread; with
 * `shared_context_id`, the context's thread and those of the objects it is about; else the
 * threads of all world objects, in object id order (cursor: the last object id).
 */
export async function listThreads(
  deps: Deps,
  query: { object_id?: string; shared_context_id?: string; limit?: number; cursor?: string },
) {
  const limit = query.limit ?? 50;
  if (query.object_id) {
    const object = await deps.repos.worldObjects.findById(query.object_id);
    const items = object
      ? await issue(deps, [{ subject: { kind: 'object', id: object._id }, name: object.name }])
      : [];
    return { items, next_cursor: null };
  }
  if (query.shared_context_id) {
    const contextId = query.shared_context_id;
    // A context no record names has no threads: an empty list, not a 404.
    const records = await loadContext(deps, contextId).catch((error: unknown) => {
      if (error instanceof NotFound) return null;
      throw error;
    });
    if (!records) return { items: [], next_cursor: null };
    const objects = aboutnessOf(records).objects.slice(0, limit - 1);
    const items = await issue(deps, [
      { subject: { kind: 'context', id: contextId }, name: `ctx:${contextId}` },
      ...objects.map((o) => ({
        subject: { kind: 'object' as const, id: o.object_id },
        name: o.object_id,
      })),
    ]);
    return { items, next_cursor: null };
  }
  const after = query.cursor ? decodeIdCursor(query.cursor, 'obj') : undefined;
  const rows = await deps.repos.worldObjects.list({}, limit, after);
  const page = rows.slice(0, limit);
  const items = await issue(
    deps,
    page.map((o) => ({ subject: { kind: 'object', id: o._id }, name: o.name })),
  );
  const last = page[page.length - 1];
  return {
    items,
    next_cursor: rows.length > limit && last ? encodeIdCursor(last._id) : null,
  };
}

/**
 * `GET /v1/intentionality/threads/{thread_id}`: the thread's records, oldest first, paged
 * (cursor: the last entry's time and id). An id the server never issued is 404.
 */
export async function getThread(
  deps: Deps,
  threadId: string,
  query: { limit?: number; cursor?: string },
) {
  const subject = await deps.repos.threads.subjectOf(threadId);
  if (!subject) throw notFound(`thread ${threadId}`);
  const entries = (
    subject.kind === 'object'
      ? await objectEntries(deps, subject.id)
      : await contextEntries(deps, subject.id)
  ).sort(byTime);
  const limit = query.limit ?? 50;
  const position = query.cursor ? decodePageCursor(query.cursor) : undefined;
  const start = position
    ? entries.findIndex((e) => byTime(e, { ...e, at: position.at, id: position.id }) > 0)
    : 0;
  const items = start < 0 ? [] : entries.slice(start, start + limit);
  const last = items[items.length - 1];
  const more = start >= 0 && start + limit < entries.length;
  return {
    thread_id: threadId,
    subject,
    entries: items,
    total: entries.length,
    next_cursor: more && last ? encodePageCursor({ at: last.at, id: last.id }) : null,
  };
}
