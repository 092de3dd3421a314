import type { AppInfra } from '../../app/deps';
import { notFound } from '../../lib/errors';
import type { ActionRecord } from '../../store/external-actions.repo';
import type { ExternalEventRecord } from '../../store/external-events.repo';
import type { SessionRecord } from '../../store/sessions.repo';
import type { WorldTask } from '../../store/world-tasks.repo';
import { MAX_WITNESS_RECORDS, type WitnessInput } from '../witnesses/inputs';

type Deps = Pick<AppInfra, 'repos'>;

/** The records that name one shared context, each kind newest first. */
export interface ContextRecords {
  context_id: string;
  sessions: SessionRecord[];
  actions: ActionRecord[];
  events: ExternalEventRecord[];
  tasks: WorldTask[];
  /** A kind's read stopped at `MAX_WITNESS_RECORDS`. */
  bounded: boolean;
}

/**
 * The records of a context, read by its `shared_context_id` (an indexed field of each
 * collection); 404 when none names it: a context exists once any record does.
 */
export async function loadContext(deps: Deps, contextId: string): Promise<ContextRecords> {
  const limit = MAX_WITNESS_RECORDS;
  const [sessions, actions, events, tasks] = await Promise.all([
    deps.repos.sessions.inContext(contextId, limit),
    deps.repos.externalActions.inContext(contextId, limit),
    deps.repos.externalEvents.inContext(contextId, limit),
    deps.repos.worldTasks.inContext(contextId, limit),
  ]);
  if (sessions.length + actions.length + events.length + tasks.length === 0) {
    throw notFound(`shared context ${contextId}`);
  }
  const bounded = [sessions, actions, events, tasks].some((rows) => rows.length >= limit);
  return { context_id: contextId, sessions, actions, events, tasks, bounded };
}

/** Every record of the context as a witness input (kind, id, version). */
export const inputsOfContext = (records: ContextRecords): WitnessInput[] => [
  ...records.sessions.map((s) => ({ kind: 'session', id: s._id, version: 1 })),
  ...records.actions.map((a) => ({ kind: 'action', id: a._id, version: a.seq })),
  ...records.events.map((e) => ({ kind: 'event', id: e.event_id, version: 1 })),
  ...records.tasks.map((t) => ({ kind: 'task', id: t._id, version: t.version })),
];

/** When each record happened, for first and last activity. */
export const timesOf = (records: ContextRecords): string[] => [
  ...records.sessions.map((s) => s.created_at),
  ...records.actions.map((a) => a.updated_at),
  ...records.events.map((e) => e.received_at),
  ...records.tasks.map((t) => t.updated_at),
];
