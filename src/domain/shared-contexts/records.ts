import type { DomainInfra } from '../infra';
import { notFound } from '../../lib/errors';
import type { SessionRecord } from '../../store/sessions.repo';
import type { WitnessAction, WitnessLedgerEntry } from '../../store/external-actions.repo';
import type { WitnessEvent } from '../../store/external-events.repo';
import type { WorldTask } from '../../store/world-tasks.repo';
import { MAX_WITNESS_RECORDS, type WitnessInput } from '../witnesses/inputs';
import type { WitnessFold } from '../witnesses/witness-index';

type Deps = Pick<DomainInfra, 'witnesses'>;

/** The records that name one shared context, each kind newest first (the ledger oldest first). */
export interface ContextRecords {
  context_id: string;
  sessions: SessionRecord[];
  actions: WitnessAction[];
  events: WitnessEvent[];
  tasks: WorldTask[];
  ledger: WitnessLedgerEntry[];
  /** A kind's read stopped at `MAX_WITNESS_RECORDS`. */
  bounded: boolean;
  /** The fold they were read from (for the views that read more of it). */
  fold: WitnessFold;
}

/** The records of `ids`, ordered by `key` (descending unless `ascending`), at most the bound. */
function ordered<T>(
  ids: Iterable<string>,
  records: Map<string, T>,
  key: (record: T) => string,
  ascending = false,
): T[] {
  const found: T[] = [];
  for (const id of ids) {
    const record = records.get(id);
    if (record) found.push(record);
  }
  const direction = ascending ? 1 : -1;
  found.sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    return ka === kb ? 0 : ka < kb ? -direction : direction;
  });
  return ascending ? found.slice(-MAX_WITNESS_RECORDS) : found.slice(0, MAX_WITNESS_RECORDS);
}

/**
 * The records of a context, from the witness index (its records grouped by
 * `shared_context_id`, docs/witnesses.md); 404 when none names it: a context exists once
 * any record does.
 */
export async function loadContext(deps: Deps, contextId: string): Promise<ContextRecords> {
  const fold = await deps.witnesses.current();
  const members = fold.context(contextId);
  if (
    !members ||
    members.sessions.size + members.actions.size + members.events.size + members.tasks.size === 0
  ) {
    throw notFound(`shared context ${contextId}`);
  }
  const bounded = [members.sessions, members.actions, members.events, members.tasks].some(
    (ids) => ids.size > MAX_WITNESS_RECORDS,
  );
  const byId = (record: { _id: string }) => record._id;
  return {
    context_id: contextId,
    sessions: ordered(members.sessions, fold.sessions, byId),
    actions: ordered(members.actions, fold.actions, byId),
    events: ordered(members.events, fold.events, (event) => event.event_id),
    tasks: ordered(members.tasks, fold.tasks, byId),
    ledger: ordered(members.ledger, fold.ledger, (entry) => `${entry.at}|${entry._id}`, true),
    bounded,
    fold,
  };
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
