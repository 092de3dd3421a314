import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import type { DomainInfra } from '../infra';
import { NotFound, Unavailable, Invalid, notFound, type ValidationIssue } from '../../lib/errors';
import {
  externalEventSchema,
  type EventHistoryQuery,
  type ExternalEventBatchRequest,
  type ExternalEventRequest,
} from './schemas';
import type { ExternalStateQuery } from '../world/schemas';
import { createValidatorFactory, type InputValidator } from '../../lib/validation';
import { newId } from '../../lib/ids';
import { isoNow } from '../../lib/time';
import type { ExternalEventRecord, StoredReconciliation } from '../../store/external-events.repo';
import { decodeHistoryCursor, encodeHistoryCursor } from '../../store/event-history';
import { decodeIdCursor, encodeIdCursor } from '../../store/paging';
import { payloadIssues } from './payload';
import { unmatched, type EventReconciliation } from './reconciler';
import {
  toEventView,
  toExternalStateView,
  toReconciliationView,
  toStoredReconciliation,
} from './views';

type Deps = Pick<DomainInfra, 'reconciler' | 'repos'>;

/** The dedup key of an event: sha256 of `source_family`, NUL, `source_event_id`. */
export const eventKey = (sourceFamily: string, sourceEventId: string): string =>
  createHash('sha256').update(`${sourceFamily}\u0000${sourceEventId}`, 'utf8').digest('hex');

/** Checks the schema cannot express; issues are located under `loc` (the event). */
function semanticIssues(event: ExternalEventRequest, loc: (string | number)[]): ValidationIssue[] {
  const issues = payloadIssues(event.payload, [...loc, 'payload']);
  if (Number.isNaN(Date.parse(event.occurred_at))) {
    issues.push({
      loc: [...loc, 'occurred_at'],
      msg: 'Input should be a valid datetime',
      type: 'datetime_parsing',
    });
  }
  return issues;
}

/** The stored record of an accepted event (exported so the scale bench seeds the same shape). */
export function eventRecordOf(
  event: ExternalEventRequest,
  receivedAt: string,
): ExternalEventRecord {
  return {
    _id: eventKey(event.source_family, event.source_event_id),
    event_id: newId('evt'),
    source_family: event.source_family,
    source_event_id: event.source_event_id,
    event_type: event.event_type,
    occurred_at: new Date(event.occurred_at).toISOString(),
    received_at: receivedAt,
    world_object_ref: event.world_object_ref ?? null,
    shared_context_id: event.shared_context_id ?? null,
    payload: event.payload,
    payload_sha256: createHash('sha256')
      .update(stringify(event.payload) ?? '{}', 'utf8')
      .digest('hex'),
  };
}

/**
 * Reconciles stored events (in this order) and writes each one's output once. Events about
 * one object go to its reconciler together and in order, so a batch ends exactly where the
 * same events ingested one by one would; the objects pass together (one write per
 * collection for them all, `reconciler.ts`).
 */
async function reconcileAndRecord(
  deps: Deps,
  records: ExternalEventRecord[],
): Promise<Map<string, StoredReconciliation>> {
  const reconciler = deps.reconciler;
  const outcomes = new Map<string, EventReconciliation>();
  const byObject = new Map<string, ExternalEventRecord[]>();
  for (const record of records) {
    if (!record.world_object_ref) {
      outcomes.set(record.event_id, unmatched(null));
      continue;
    }
    const group = byObject.get(record.world_object_ref) ?? [];
    group.push(record);
    byObject.set(record.world_object_ref, group);
  }
  const groups = [...byObject];
  const results = await reconciler.reconcileMany(groups);
  groups.forEach(([, group], position) =>
    group.forEach((record, index) => outcomes.set(record.event_id, results[position][index])),
  );
  const reconciledAt = isoNow();
  const stored = await reconciler.writes.run(() =>
    deps.repos.externalEvents.recordReconciliations(
      records.map((record) =>
        toStoredReconciliation(record, outcomes.get(record.event_id)!, reconciledAt),
      ),
    ),
  );
  return new Map(stored.map((row) => [row._id, row]));
}

/** The output of a stored event, reconciling it now if its first ingest did not finish. */
async function outputOf(deps: Deps, record: ExternalEventRecord): Promise<StoredReconciliation> {
  const existing = await deps.repos.externalEvents.findReconciliation(record.event_id);
  if (existing) return existing;
  return (await reconcileAndRecord(deps, [record])).get(record.event_id)!;
}

/**
 * Ingests one event: claims its dedup key by inserting the record, reconciles it and records
 * the output. A repeat returns the first record and its output (`duplicate: true`).
 */
export async function ingestEvent(deps: Deps, body: ExternalEventRequest) {
  const issues = semanticIssues(body, ['body']);
  if (issues.length > 0) throw new Invalid(issues);
  const record = eventRecordOf(body, isoNow());
  const repo = deps.repos.externalEvents;
  if (await repo.claim(record)) {
    const output = (await reconcileAndRecord(deps, [record])).get(record.event_id)!;
    return { created: true, payload: ingestView(record, output, false) };
  }
  const first = await repo.findByKey(record._id);
  if (!first) throw new Unavailable('the event was claimed but cannot be read; retry');
  return { created: false, payload: ingestView(first, await outputOf(deps, first), true) };
}

const ingestView = (
  record: ExternalEventRecord,
  output: StoredReconciliation,
  duplicate: boolean,
) => ({
  event: toEventView(record, output.outcome),
  duplicate,
  reconciliation: toReconciliationView(output, record),
});

/** Checks one batch item on its own, as the ingest route checks its body (a pure function). */
const validateItem: InputValidator = createValidatorFactory()(externalEventSchema, 'body');

type BatchItemResult =
  | {
      index: number;
      ok: true;
      status: 'created' | 'duplicate';
      duplicate: boolean;
      event_id: string;
      reconciliation: StoredReconciliation['outcome'];
      errors: [];
    }
  | {
      index: number;
      ok: false;
      status: 'rejected';
      duplicate: false;
      event_id: null;
      reconciliation: null;
      errors: ValidationIssue[];
    };

const rejected = (index: number, errors: ValidationIssue[]): BatchItemResult => ({
  index,
  ok: false,
  status: 'rejected',
  duplicate: false,
  event_id: null,
  reconciliation: null,
  errors,
});

/** Issues of one batch item, located at `body.events.<index>`. */
function itemIssues(item: unknown, index: number): ValidationIssue[] {
  const { issues } = validateItem(item);
  const at = (loc: (string | number)[]) => ['body', 'events', index, ...loc.slice(1)];
  if (issues.length > 0) return issues.map((issue) => ({ ...issue, loc: at(issue.loc) }));
  return semanticIssues(item as ExternalEventRequest, ['body', 'events', index]);
}

/**
 * Ingests 1..500 events, each on its own: invalid items are rejected with their issues,
 * repeats (of stored events or of earlier items) are duplicates, the rest are claimed in
 * one unordered insert and reconciled per object in batch order.
 */
export async function ingestBatch(deps: Deps, body: ExternalEventBatchRequest) {
  const repo = deps.repos.externalEvents;
  const receivedAt = isoNow();
  const results: (BatchItemResult | undefined)[] = body.events.map(() => undefined);
  /** Items that name a key, with the index of the first item naming it. */
  const keyed: { index: number; key: string; first: number }[] = [];
  const fresh: { index: number; record: ExternalEventRecord }[] = [];
  const firstByKey = new Map<string, number>();
  body.events.forEach((item, index) => {
    const issues = itemIssues(item, index);
    if (issues.length > 0) {
      results[index] = rejected(index, issues);
      return;
    }
    const record = eventRecordOf(item as ExternalEventRequest, receivedAt);
    const first = firstByKey.get(record._id);
    keyed.push({ index, key: record._id, first: first ?? index });
    if (first === undefined) {
      firstByKey.set(record._id, index);
      fresh.push({ index, record });
    }
  });

  // Claim every new key at once; a key taken already is a duplicate of the stored event.
  const claims = await repo.claimMany(
    fresh.map((f) => f.record),
    (write) => deps.reconciler.writes.run(write),
  );
  const stored = new Map<string, { record: ExternalEventRecord; created: boolean }>();
  const taken: { index: number; key: string }[] = [];
  fresh.forEach(({ index, record }, position) => {
    const claim = claims[position];
    if (claim.status === 'created') stored.set(record._id, { record, created: true });
    else if (claim.status === 'duplicate') taken.push({ index, key: record._id });
    else {
      // The store's own message names its internals (and values in its syntax), not the
      // caller's input: the item is named instead. The body layer refuses every value the
      // store is known to refuse, so this is for what no one foresaw.
      results[index] = rejected(index, [
        {
          loc: ['body', 'events', index],
          msg: `Event ${index} was not stored: the store refused a value in it. Nothing of it was stored`,
          type: 'value_error',
        },
      ]);
    }
  });
  const firsts = await Promise.all(taken.map(({ key }) => repo.findByKey(key)));
  taken.forEach(({ key }, position) => {
    const record = firsts[position];
    if (!record) throw new Unavailable('an event was claimed but cannot be read; retry');
    stored.set(key, { record, created: false });
  });

  // Reconcile the new events, and stored ones whose first ingest did not finish, in batch order.
  const outputs = new Map<string, StoredReconciliation>();
  const known = await Promise.all(
    taken.map(({ key }) => repo.findReconciliation(stored.get(key)!.record.event_id)),
  );
  for (const output of known) if (output) outputs.set(output._id, output);
  const pending = [...firstByKey.entries()]
    .sort(([, a], [, b]) => a - b)
    .map(([key]) => stored.get(key)?.record)
    .filter((record): record is ExternalEventRecord => !!record && !outputs.has(record.event_id));
  for (const [eventId, output] of await reconcileAndRecord(deps, pending)) {
    outputs.set(eventId, output);
  }

  for (const { index, key, first } of keyed) {
    const entry = stored.get(key);
    if (!entry) {
      results[index] ??= rejected(index, results[first]?.errors ?? []);
      continue;
    }
    const duplicate = !entry.created || index !== first;
    results[index] = {
      index,
      ok: true,
      status: duplicate ? 'duplicate' : 'created',
      duplicate,
      event_id: entry.record.event_id,
      reconciliation: outputs.get(entry.record.event_id)!.outcome,
      errors: [],
    };
  }
  const final = results as BatchItemResult[];
  return {
    results: final,
    created: final.filter((r) => r.status === 'created').length,
    duplicates: final.filter((r) => r.status === 'duplicate').length,
    rejected: final.filter((r) => r.status === 'rejected').length,
  };
}

/** One event by id, with its reconciliation outcome. */
export async function getEvent(deps: Deps, eventId: string) {
  const record = await deps.repos.externalEvents.findByEventId(eventId);
  if (!record) throw notFound(`external event ${eventId}`);
  const output = await deps.repos.externalEvents.findReconciliation(eventId);
  return toEventView(record, output?.outcome);
}

/** What reconciliation did with one event. */
export async function getReconciliation(deps: Deps, eventId: string) {
  const output = await deps.repos.externalEvents.findReconciliation(eventId);
  const event = output
    ? await deps.repos.externalEvents.findByKey(output.event_key)
    : await deps.repos.externalEvents.findByEventId(eventId);
  if (output && event) return toReconciliationView(output, event);
  if (event) {
    throw new NotFound(
      `the reconciliation of ${eventId} is not recorded: its ingest did not finish; send the event again to complete it`,
    );
  }
  throw notFound(`external event ${eventId}`);
}

/** Ingested events, newest recorded first (docs/external-events.md, "History"). */
export async function eventHistory(deps: Deps, query: EventHistoryQuery) {
  const limit = query.limit ?? 50;
  const filter = { source_family: query.source_family, world_object_ref: query.world_object_ref };
  const after = query.cursor ? decodeHistoryCursor(query.cursor, filter) : undefined;
  const page = await deps.repos.externalEvents.list(filter, limit, after);
  const outcomes = await deps.repos.externalEvents.outcomesOf(page.items.map((e) => e.event_id));
  return {
    items: page.items.map((record) => toEventView(record, outcomes.get(record.event_id))),
    next_cursor: page.next ? encodeHistoryCursor(page.next) : null,
  };
}

/**
 * Reconciled external state per object, in id order. Each state is read from the object's
 * projection and checked against its revision chain, so a pass still recording (or one that
 * died before recording) shows as committed with `Reconciled` False.
 */
export async function externalStates(deps: Deps, query: ExternalStateQuery) {
  const repo = deps.repos.worldExternalState;
  const limit = query.limit ?? 50;
  const after = query.cursor ? decodeIdCursor(query.cursor, 'obj') : undefined;
  const rows = await repo.list({ object_id: query.object_id, kind: query.kind }, limit, after);
  const items = rows.slice(0, limit);
  const views = await Promise.all(
    items.map(async (object) => {
      const projected = object.external_state as ExternalStateOf;
      let latest = null;
      for (let revision = projected.revision + 1; ; revision += 1) {
        const next = await repo.findRevision(object._id, revision);
        if (!next) break;
        latest = next;
      }
      return toExternalStateView(object, projected, latest);
    }),
  );
  const last = items[items.length - 1];
  return {
    items: views,
    next_cursor: rows.length > limit && last ? encodeIdCursor(last._id) : null,
  };
}

type ExternalStateOf = Parameters<typeof toExternalStateView>[1];
