import { storedIn } from '../helpers/collections';
import { newId } from '../../src/lib/ids';
import { call, type HttpResult } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

interface EventView {
  event_id: string;
  source_family: string;
  source_event_id: string;
  event_type: string;
  occurred_at: string;
  received_at: string;
  world_object_ref: string | null;
  shared_context_id: string | null;
  payload: Record<string, unknown>;
  payload_sha256: string;
  reconciliation?: string;
}
interface ReconciliationView {
  event_id: string;
  reconciliation_id: string;
  outcome: 'applied' | 'stale' | 'unmatched' | 'conflict';
  world_object_ref: string | null;
  applied_fields: string[];
  stale_fields: string[];
  conflicts: { field: string; resolution: string; against: { source_event_id: string } }[];
  reason: string | null;
  generation: number | null;
  revision: number | null;
  reconciled_at: string;
}
interface IngestView {
  event: EventView;
  duplicate: boolean;
  reconciliation: ReconciliationView;
}
interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  last_transition_time: string;
}
interface Provenance {
  occurred_at: string;
  event_id: string;
  source_family: string;
  source_event_id: string;
  conflict: boolean;
}
interface StateView {
  object_id: string;
  kind: string;
  fields: Record<string, unknown>;
  provenance: Record<string, Provenance>;
  generation: number;
  observed_generation: number;
  conditions: Condition[];
  last_event_id: string | null;
  revision: number;
}
interface BatchResult {
  index: number;
  ok: boolean;
  status: 'created' | 'duplicate' | 'rejected';
  duplicate: boolean;
  event_id: string | null;
  reconciliation: string | null;
  errors: { loc: (string | number)[]; msg: string; type: string }[];
}
interface BatchView {
  results: BatchResult[];
  created: number;
  duplicates: number;
  rejected: number;
}
type Envelope<T> = {
  ok: boolean;
  payload: T;
  error?: { code: string; message: string };
  detail?: { loc: (string | number)[]; msg: string; type: string }[] | string;
};
type Page<T> = Envelope<{ items: T[]; next_cursor: string | null }>;

let app: TestApp;
let key: TestKey;

beforeAll(async () => {
  app = await startTestApp('external_events');
  key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 3 });
});
afterAll(() => app.close());

async function worldObject(kind = 'service') {
  const now = new Date().toISOString();
  return app.deps.repos.worldObjects.insert({
    _id: newId('obj'),
    kind,
    name: 'Checkout API',
    attributes: { tier: 'gold' },
    external_state: {},
    version: 1,
    created_at: now,
    updated_at: now,
  });
}

let sequence = 0;
/** A unique source id; `tag` keeps ids of one scenario comparable across runs. */
const sourceId = (tag = 'e') => `${tag}-${process.pid}-${(sequence += 1)}`;

const event = (overrides: Record<string, unknown> = {}) => ({
  source_family: 'monitoring',
  source_event_id: sourceId(),
  event_type: 'service.status_changed',
  occurred_at: '2025-03-01T10:00:00.000Z',
  payload: { status: 'up' },
  ...overrides,
});

const ingest = (body: unknown, headers?: Record<string, string>) =>
  call<Envelope<IngestView>>(app.url, 'POST', '/v1/external-events/ingest', {
    key: key.apiKey,
    body,
    headers,
  });
const ingestBatch = (events: unknown[]) =>
  call<Envelope<BatchView>>(app.url, 'POST', '/v1/external-events/ingest-batch', {
    key: key.apiKey,
    body: { events },
  });
const get = <T>(path: string) => call<Envelope<T>>(app.url, 'GET', path, { key: key.apiKey });
const stateOf = async (objectId: string): Promise<StateView> => {
  const res = await call<Page<StateView>>(
    app.url,
    'GET',
    `/v1/worlds/external-state?object_id=${objectId}`,
    { key: key.apiKey },
  );
  expect(res.status).toBe(200);
  expect(res.body.payload.items).toHaveLength(1);
  return res.body.payload.items[0];
};

function expectCreated(res: HttpResult<Envelope<IngestView>>): IngestView {
  if (res.status !== 201) throw new Error(`expected 201, got ${res.status}: ${res.text}`);
  return res.body.payload;
}

/** The merged fields and their provenance, without what differs between runs. */
function comparable(state: StateView) {
  return {
    fields: state.fields,
    provenance: Object.fromEntries(
      Object.entries(state.provenance).map(([field, p]) => [
        field,
        {
          occurred_at: p.occurred_at,
          source_family: p.source_family,
          source: p.source_event_id.split(':')[1],
          conflict: p.conflict,
        },
      ]),
    ),
  };
}

describe('POST /v1/external-events/ingest', () => {
  it('stores the event (201), reconciles it into its object and keeps per-field provenance', async () => {
    const object = await worldObject();
    const body = event({
      world_object_ref: object._id,
      shared_context_id: 'ctx:incident-7',
      occurred_at: '2025-03-01T12:00:00+02:00',
      payload: { status: 'degraded', latency_ms: 840 },
    });
    const res = await ingest(body);
    const { event: stored, duplicate, reconciliation } = expectCreated(res);
    expect(duplicate).toBe(false);
    expect(stored).toMatchObject({
      source_family: 'monitoring',
      source_event_id: body.source_event_id,
      event_type: 'service.status_changed',
      occurred_at: '2025-03-01T10:00:00.000Z',
      world_object_ref: object._id,
      shared_context_id: 'ctx:incident-7',
      payload: { status: 'degraded', latency_ms: 840 },
      reconciliation: 'applied',
    });
    expect(stored.event_id).toMatch(/^evt_[0-9A-Z]{26}$/);
    expect(stored.payload_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(reconciliation).toMatchObject({
      event_id: stored.event_id,
      outcome: 'applied',
      world_object_ref: object._id,
      applied_fields: ['status', 'latency_ms'],
      stale_fields: [],
      conflicts: [],
      reason: null,
      generation: 1,
      revision: 1,
    });
    expect(reconciliation.reconciliation_id).toMatch(/^rec_/);

    const state = await stateOf(object._id);
    expect(state).toMatchObject({
      object_id: object._id,
      kind: 'service',
      fields: { status: 'degraded', latency_ms: 840 },
      generation: 1,
      observed_generation: 1,
      last_event_id: stored.event_id,
      revision: 1,
    });
    expect(state.provenance['status']).toEqual({
      occurred_at: '2025-03-01T10:00:00.000Z',
      event_id: stored.event_id,
      source_family: 'monitoring',
      source_event_id: body.source_event_id,
      conflict: false,
    });
    expect(state.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Reconciled', 'True', 'Recorded'],
      ['ConflictFree', 'True', 'NoConflicts'],
    ]);

    // The object carries the same state, and its attributes and version are untouched.
    const object2 = await app.deps.repos.worldObjects.findById(object._id);
    expect(object2).toMatchObject({
      version: 1,
      attributes: { tier: 'gold' },
      external_state: { generation: 1, fields: { status: 'degraded', latency_ms: 840 } },
    });
    // One world history event for the applied change.
    const history = await storedIn(app.deps.db)
      .worldHistory.find({ object_id: object._id })
      .toArray();
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      kind: 'object.external_state_changed',
      change: {
        revision: 1,
        generation: { from: 0, to: 1 },
        fields: { status: { from: null, to: 'degraded' }, latency_ms: { from: null, to: 840 } },
        event_ids: [stored.event_id],
      },
    });
    expect(history[0]._id).toMatch(/^evt_/);
  });

  it('returns the first record with duplicate: true (200) for a repeat, even with another body', async () => {
    const object = await worldObject();
    const body = event({ world_object_ref: object._id });
    const first = expectCreated(await ingest(body));
    const again = await ingest({ ...body, payload: { status: 'down' }, event_type: 'other' });
    expect(again.status).toBe(200);
    expect(again.body.payload.duplicate).toBe(true);
    expect(again.body.payload.event).toEqual(first.event);
    expect(again.body.payload.reconciliation).toEqual(first.reconciliation);
    expect((await stateOf(object._id)).fields).toEqual({ status: 'up' });
    expect(
      await storedIn(app.deps.db).externalEvents.countDocuments({
        source_event_id: body.source_event_id,
      }),
    ).toBe(1);
  });

  it('keeps one record under 20 concurrent identical ingests, never a 500', async () => {
    const object = await worldObject();
    const body = event({ world_object_ref: object._id, payload: { status: 'up', zone: 'b' } });
    const answers = await Promise.all(Array.from({ length: 20 }, () => ingest(body)));
    expect(answers.map((a) => a.status).sort()).toEqual([
      200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200,
      201,
    ]);
    const ids = new Set(answers.map((a) => a.body.payload.event.event_id));
    expect(ids.size).toBe(1);
    expect(answers.filter((a) => a.body.payload.duplicate)).toHaveLength(19);
    expect(new Set(answers.map((a) => a.body.payload.reconciliation.outcome))).toEqual(
      new Set(['applied']),
    );
    expect(
      await storedIn(app.deps.db).externalEvents.countDocuments({
        source_event_id: body.source_event_id,
      }),
    ).toBe(1);
    const state = await stateOf(object._id);
    expect(state).toMatchObject({
      generation: 1,
      revision: 1,
      fields: { status: 'up', zone: 'b' },
    });
  });

  it('replays the first answer for a repeated Idempotency-Key', async () => {
    const body = event();
    const first = await ingest(body, { 'Idempotency-Key': `k-${body.source_event_id}` });
    expect(first.status).toBe(201);
    const replay = await ingest(body, { 'Idempotency-Key': `k-${body.source_event_id}` });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
  });

  it.each([
    [
      { ...event(), source_family: 'Bad Family' },
      ['body', 'source_family'],
      'string_pattern_mismatch',
    ],
    [(({ event_type: _e, ...rest }) => rest)(event()), ['body', 'event_type'], 'missing'],
    [{ ...event(), occurred_at: 'yesterday' }, ['body', 'occurred_at'], 'value_error'],
    [{ ...event(), payload: 'up' }, ['body', 'payload'], 'model_attributes_type'],
    [{ ...event(), extra: 1 }, ['body', 'extra'], 'extra_forbidden'],
    [
      { ...event(), world_object_ref: 'has space' },
      ['body', 'world_object_ref'],
      'string_pattern_mismatch',
    ],
    [{ ...event(), payload: { 'a.b': 1 } }, ['body', 'payload', 'a.b'], 'value_error'],
    [
      { ...event(), payload: { nested: { $set: 1 } } },
      ['body', 'payload', 'nested', '$set'],
      'value_error',
    ],
    [
      { ...event(), payload: { ['x'.repeat(129)]: 1 } },
      ['body', 'payload', 'x'.repeat(129)],
      'value_error',
    ],
  ])('answers 422 naming the field (%#)', async (body, loc, type) => {
    const res = await ingest(body);
    expect(res.status).toBe(422);
    expect(res.body.error?.code).toBe('validation_error');
    expect(res.body.detail).toEqual(
      expect.arrayContaining([expect.objectContaining({ loc, type })]),
    );
  });

  it('refuses a payload over 64 KiB with 422 on body.payload, and takes one at the limit', async () => {
    const fits = { blob: 'x'.repeat(64 * 1024 - '{"blob":""}'.length) };
    expect(JSON.stringify(fits).length).toBe(64 * 1024);
    expect((await ingest(event({ payload: fits }))).status).toBe(201);
    const res = await ingest(event({ payload: { blob: `${fits.blob}y` } }));
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      {
        loc: ['body', 'payload'],
        msg: 'Payload should be at most 65536 bytes of JSON, got 65537',
        type: 'too_long',
        ctx: { max_bytes: 65536, bytes: 65537 },
      },
    ]);
  });

  it('refuses payloads with more than 256 fields or nested more than 32 levels', async () => {
    const wide = Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`f${i}`, i]));
    expect((await ingest(event({ payload: wide }))).body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'payload'], type: 'too_long' }),
    ]);
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 40; i += 1) deep = { d: deep };
    const res = await ingest(event({ payload: deep }));
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ type: 'value_error', ctx: { max_depth: 32 } }),
    ]);
  });
});

describe('reconciliation outcomes', () => {
  it('applied, then stale for an older event, then partially applied', async () => {
    const object = await worldObject();
    const newer = expectCreated(
      await ingest(
        event({
          world_object_ref: object._id,
          occurred_at: '2025-03-01T10:05:00Z',
          payload: { status: 'down', region: 'eu' },
        }),
      ),
    );
    expect(newer.reconciliation.outcome).toBe('applied');

    const older = expectCreated(
      await ingest(
        event({
          world_object_ref: object._id,
          occurred_at: '2025-03-01T10:00:00Z',
          payload: { status: 'up', region: 'us' },
        }),
      ),
    );
    expect(older.reconciliation).toMatchObject({
      outcome: 'stale',
      applied_fields: [],
      stale_fields: ['status', 'region'],
      generation: 1,
      reason: 'every field is held by a newer observation: status, region',
    });
    expect(older.event.reconciliation).toBe('stale');

    const partial = expectCreated(
      await ingest(
        event({
          world_object_ref: object._id,
          occurred_at: '2025-03-01T10:02:00Z',
          payload: { status: 'up', owner: 'sre' },
        }),
      ),
    );
    expect(partial.reconciliation).toMatchObject({
      outcome: 'applied',
      applied_fields: ['owner'],
      stale_fields: ['status'],
      generation: 2,
    });
    const state = await stateOf(object._id);
    expect(state.fields).toEqual({ status: 'down', region: 'eu', owner: 'sre' });
    expect(state).toMatchObject({ generation: 2, observed_generation: 2, revision: 2 });
    // A stale event changes nothing: no history for it.
    expect(await storedIn(app.deps.db).worldHistory.countDocuments({ object_id: object._id })).toBe(
      2,
    );
  });

  it('an empty payload is stale: it carries nothing to merge', async () => {
    const object = await worldObject();
    const res = expectCreated(await ingest(event({ world_object_ref: object._id, payload: {} })));
    expect(res.reconciliation).toMatchObject({
      outcome: 'stale',
      reason: 'the payload carries no fields',
    });
  });

  it('unmatched: an unknown object, or no object at all', async () => {
    const unknown = newId('obj');
    const res = expectCreated(await ingest(event({ world_object_ref: unknown })));
    expect(res.reconciliation).toMatchObject({
      outcome: 'unmatched',
      world_object_ref: unknown,
      reason: `no world object ${unknown}`,
      generation: null,
      revision: null,
    });
    const handle = expectCreated(await ingest(event({ world_object_ref: 'svc:checkout' })));
    expect(handle.reconciliation.outcome).toBe('unmatched');
    const none = expectCreated(await ingest(event()));
    expect(none.reconciliation).toMatchObject({
      outcome: 'unmatched',
      world_object_ref: null,
      reason: 'the event names no world object',
    });
  });

  it('conflict: same occurred_at, different values; the larger source id wins in either order', async () => {
    const results: { state: StateView; outcomes: ReconciliationView[] }[] = [];
    for (const order of [
      ['a', 'b'],
      ['b', 'a'],
    ]) {
      const object = await worldObject();
      const outcomes: ReconciliationView[] = [];
      for (const tag of order) {
        const res = await ingest(
          event({
            world_object_ref: object._id,
            source_event_id: `tie-${object._id}-${tag}`,
            occurred_at: '2025-03-01T11:00:00Z',
            payload: { status: tag === 'a' ? 'up' : 'down', note: 'same' },
          }),
        );
        outcomes.push(expectCreated(res).reconciliation);
      }
      results.push({ state: await stateOf(object._id), outcomes });
    }
    for (const { state, outcomes } of results) {
      expect(state.fields).toEqual({ status: 'down', note: 'same' });
      expect(state.provenance['status'].source_event_id).toMatch(/-b$/);
      expect(state.provenance['status'].conflict).toBe(true);
      expect(state.provenance['note'].conflict).toBe(false);
      expect(outcomes[0].outcome).toBe('applied');
      expect(outcomes[1].outcome).toBe('conflict');
      const conditions = Object.fromEntries(state.conditions.map((c) => [c.type, c]));
      expect(conditions['ConflictFree']).toMatchObject({
        status: 'False',
        reason: 'SameTimeDifferentValues',
      });
      expect(conditions['ConflictFree'].message).toContain('status');
    }
    // a then b: b wins the tie; b then a: a loses it.
    expect(results[0].outcomes[1].conflicts).toEqual([
      expect.objectContaining({ field: 'status', resolution: 'won' }),
    ]);
    expect(results[0].outcomes[1].applied_fields).toEqual(['status', 'note']);
    expect(results[1].outcomes[1].conflicts).toEqual([
      expect.objectContaining({ field: 'status', resolution: 'lost' }),
    ]);
    expect(results[1].outcomes[1].applied_fields).toEqual([]);
    expect(results[1].outcomes[1].stale_fields).toEqual(['note']);
    expect(results[1].outcomes[1].reason).toContain('status lost to monitoring/tie-');
  });

  it('moves generations, observed generations and condition transition times as documented', async () => {
    const object = await worldObject();
    const send = (at: string, payload: Record<string, unknown>, id = sourceId()) =>
      ingest(
        event({ world_object_ref: object._id, source_event_id: id, occurred_at: at, payload }),
      );
    await send('2025-03-01T10:00:00Z', { status: 'up' });
    const first = await stateOf(object._id);
    const since = first.conditions.find((c) => c.type === 'ConflictFree')!.last_transition_time;
    await send('2025-03-01T10:01:00Z', { status: 'down' });
    const second = await stateOf(object._id);
    expect(second).toMatchObject({ generation: 2, observed_generation: 2, revision: 2 });
    // No status change, no transition.
    expect(second.conditions.find((c) => c.type === 'ConflictFree')!.last_transition_time).toBe(
      since,
    );
    await send('2025-03-01T10:01:00Z', { status: 'flapping' }, `zz-${sourceId()}`);
    const third = await stateOf(object._id);
    const conflictFree = third.conditions.find((c) => c.type === 'ConflictFree')!;
    expect(conflictFree.status).toBe('False');
    expect(conflictFree.last_transition_time > since).toBe(true);
    // Stale: nothing moves.
    await send('2025-03-01T09:00:00Z', { status: 'up' });
    expect(await stateOf(object._id)).toEqual(third);
  });
});

describe('order independence', () => {
  /** Events about one object: several fields, several times, a tie, a repeat value. */
  const scenario = (objectId: string, run: string) =>
    [
      ['2025-03-01T10:00:00Z', { status: 'up', version: '1.0' }],
      ['2025-03-01T10:03:00Z', { status: 'down' }],
      ['2025-03-01T10:01:00Z', { version: '1.1', owner: 'ada' }],
      ['2025-03-01T10:03:00Z', { status: 'degraded', load: 0.7 }],
      ['2025-03-01T09:59:00Z', { owner: 'bob', load: 0.1 }],
      ['2025-03-01T10:02:00Z', { version: '1.2' }],
      ['2025-03-01T10:02:00Z', { version: '1.2', owner: 'cy' }],
      ['2025-03-01T10:04:00Z', { load: 0.9, region: { name: 'eu', zones: [1, 2] } }],
    ].map(([occurred_at, payload], n) =>
      event({
        world_object_ref: objectId,
        source_event_id: `${run}:${String.fromCharCode(97 + n)}`,
        occurred_at,
        payload,
      }),
    );
  const shuffled = <T>(items: T[], seed: number): T[] => {
    const out = [...items];
    let s = seed;
    for (let i = out.length - 1; i > 0; i -= 1) {
      s = (s * 1103515245 + 12345) % 2147483648;
      const j = s % (i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  };

  it('reaches the in-order state whatever the order: one by one, reversed, shuffled, in a batch, concurrently', async () => {
    const inOrder = await worldObject();
    for (const body of scenario(inOrder._id, `r0${inOrder._id}`)) expectCreated(await ingest(body));
    const expected = comparable(await stateOf(inOrder._id));
    expect(expected.fields).toEqual({
      status: 'degraded',
      version: '1.2',
      owner: 'cy',
      load: 0.9,
      region: { name: 'eu', zones: [1, 2] },
    });
    expect(expected.provenance['status'].conflict).toBe(true);
    expect(expected.provenance['version'].conflict).toBe(false);

    const reversed = await worldObject();
    for (const body of scenario(reversed._id, `r1${reversed._id}`).reverse()) {
      expectCreated(await ingest(body));
    }
    expect(comparable(await stateOf(reversed._id))).toEqual(expected);

    for (const seed of [7, 42, 1234]) {
      const object = await worldObject();
      for (const body of shuffled(scenario(object._id, `r2${object._id}`), seed)) {
        expectCreated(await ingest(body));
      }
      expect(comparable(await stateOf(object._id))).toEqual(expected);
    }

    const batched = await worldObject();
    const batch = await ingestBatch(shuffled(scenario(batched._id, `r3${batched._id}`), 99));
    expect(batch.status).toBe(200);
    expect(batch.body.payload.created).toBe(8);
    expect(comparable(await stateOf(batched._id))).toEqual(expected);

    const concurrent = await worldObject();
    const answers = await Promise.all(
      scenario(concurrent._id, `r4${concurrent._id}`).map((body) => ingest(body)),
    );
    expect(answers.every((a) => a.status === 201)).toBe(true);
    expect(comparable(await stateOf(concurrent._id))).toEqual(expected);
  });

  it('a batch reconciles exactly as the same events one by one, in batch order', async () => {
    const one = await worldObject();
    const two = await worldObject();
    const events = (objectId: string, run: string) =>
      shuffled(scenario(objectId, `${run}${objectId}`), 5);
    const single: string[] = [];
    for (const body of events(one._id, 's')) {
      single.push(expectCreated(await ingest(body)).reconciliation.outcome);
    }
    const batch = await ingestBatch(events(two._id, 'b'));
    expect(batch.body.payload.results.map((r) => r.reconciliation)).toEqual(single);
    const a = await stateOf(one._id);
    const b = await stateOf(two._id);
    expect(comparable(b)).toEqual(comparable(a));
    expect(b.generation).toBe(a.generation);
    // The batch committed once: one revision and one history event for the object.
    expect(b.revision).toBe(1);
    expect(await storedIn(app.deps.db).worldHistory.countDocuments({ object_id: two._id })).toBe(1);
  });

  it('converges when two api processes write one object concurrently (revision claims)', async () => {
    const other = await startTestApp('external_events_b', {
      dbName: app.dbName,
      adminKey: app.adminKey,
    });
    try {
      const object = await worldObject();
      const reference = await worldObject();
      for (const body of scenario(reference._id, `p0${reference._id}`)) {
        expectCreated(await ingest(body));
      }
      const expected = comparable(await stateOf(reference._id));
      // Many rounds of racing writers: each api gets half the events, all at once.
      const bodies = shuffled(scenario(object._id, `p1${object._id}`), 3);
      const answers = await Promise.all(
        bodies.map((body, i) =>
          call<Envelope<IngestView>>(
            i % 2 === 0 ? app.url : other.url,
            'POST',
            '/v1/external-events/ingest',
            { key: key.apiKey, body },
          ),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 201));
      const state = await stateOf(object._id);
      expect(comparable(state)).toEqual(expected);
      // The chain is contiguous and each committed revision has exactly one history event.
      const revisions = await storedIn(app.deps.db)
        .externalStateRevisions.find({ object_id: object._id })
        .toArray();
      expect(revisions.map((r) => r.revision).sort((x, y) => x - y)).toEqual(
        Array.from({ length: state.revision }, (_, i) => i + 1),
      );
      expect(
        await storedIn(app.deps.db).worldHistory.countDocuments({ object_id: object._id }),
      ).toBe(state.revision);
    } finally {
      await other.stop();
    }
  });
  it('loses no update when reconcilers race on one object: losers re-read and re-merge', async () => {
    const { createReconciler } = await import('../../src/domain/external-events/reconciler');
    const repo = app.deps.repos.worldExternalState;
    let lost = 0;
    // In the racing part, the first three claims wait for each other, so a race happens
    // however fast the store answers (they read the same head, and two of them lose).
    let gated = false;
    let waiting = 0;
    let releaseClaims!: () => void;
    const together = new Promise<void>((resolve) => (releaseClaims = resolve));
    const racing = () =>
      createReconciler({
        logger: app.deps.logger,
        repos: {
          ...app.deps.repos,
          worldExternalState: {
            ...repo,
            claimRevisions: async (revisions: Parameters<typeof repo.claimRevisions>[0]) => {
              if (gated && waiting < 3) {
                waiting += 1;
                if (waiting === 3) releaseClaims();
                await together;
              }
              const won = await repo.claimRevisions(revisions);
              lost += won.filter((w) => !w).length;
              return won;
            },
          },
        },
      });
    const writers = [racing(), racing(), racing()];
    const object = await worldObject();
    const reference = await worldObject();
    const events = Array.from({ length: 60 }, (_, n) => ({
      event_id: newId('evt'),
      source_family: 'race',
      source_event_id: `r-${String(n).padStart(3, '0')}`,
      occurred_at: new Date(Date.UTC(2025, 2, 1, 10, n % 7, n % 3)).toISOString(),
      payload: { [`f${n % 5}`]: n, last: n % 4 },
    }));
    for (const e of events) await writers[0].reconcile(reference._id, [e]);
    gated = true;
    await Promise.all(
      shuffled(events, 11).map((e, i) => writers[i % writers.length].reconcile(object._id, [e])),
    );
    const expected = await repo.findObject(reference._id);
    const got = await repo.findObject(object._id);
    expect(got!.external_state!.fields).toEqual(expected!.external_state!.fields);
    expect(got!.external_state!.provenance).toEqual(expected!.external_state!.provenance);
    expect(lost).toBeGreaterThan(0);
    const revisions = await storedIn(app.deps.db).externalStateRevisions.countDocuments({
      object_id: object._id,
    });
    expect(got!.external_state!.revision).toBe(revisions);
  });
  it('puts the newest revision back when its own late projection overwrote it', async () => {
    const { createReconciler } = await import('../../src/domain/external-events/reconciler');
    const repo = app.deps.repos.worldExternalState;
    // Writer A's projection of revision 1 is held until writer B has committed and
    // projected revision 2; then A's write lands over B's.
    let releaseA!: () => void;
    const aHeld = new Promise<void>((resolve) => (releaseA = resolve));
    let aWriting!: () => void;
    const aReached = new Promise<void>((resolve) => (aWriting = resolve));
    const writerA = createReconciler({
      logger: app.deps.logger,
      repos: {
        ...app.deps.repos,
        worldExternalState: {
          ...repo,
          projectManyById: async (
            states: Parameters<typeof repo.projectManyById>[0],
            alsoChanged: Parameters<typeof repo.projectManyById>[1],
          ) => {
            if (states.some(([, state]) => state.revision === 1)) {
              aWriting();
              await aHeld;
            }
            return repo.projectManyById(states, alsoChanged);
          },
        },
      },
    });
    const writerB = createReconciler({ logger: app.deps.logger, repos: app.deps.repos });
    const object = await worldObject();
    const event = (n: number) => ({
      event_id: newId('evt'),
      source_family: 'late',
      source_event_id: `l-${n}`,
      occurred_at: new Date(Date.UTC(2025, 3, 1, 0, 0, n)).toISOString(),
      payload: { n },
    });
    const first = writerA.reconcile(object._id, [event(1)]);
    await aReached;
    await writerB.reconcile(object._id, [event(2)]);
    expect((await repo.findObject(object._id))!.external_state!.revision).toBe(2);
    releaseA();
    expect((await first)[0].revision).toBe(1);
    const state = (await repo.findObject(object._id))!.external_state!;
    expect(state.revision).toBe(2);
    expect(state.fields).toEqual({ n: 2 });
  });
});

describe('POST /v1/external-events/ingest-batch', () => {
  it('answers one result per item, in order; bad items do not sink the others', async () => {
    const object = await worldObject();
    const stored = event({ world_object_ref: object._id });
    const storedEvent = expectCreated(await ingest(stored)).event;
    const good = event({
      world_object_ref: object._id,
      occurred_at: '2025-03-02T00:00:00Z',
      payload: { status: 'down' },
    });
    const items: unknown[] = [
      good,
      { source_family: 'monitoring' },
      { ...event(), source_family: 'NOPE' },
      stored,
      good,
      event({ payload: { blob: 'x'.repeat(70_000) } }),
      (({ payload: _p, ...rest }) => rest)(event()),
      event({ world_object_ref: newId('obj') }),
    ];
    const res = await ingestBatch(items);
    expect(res.status).toBe(200);
    const { results } = res.body.payload;
    expect(results.map((r) => [r.index, r.status, r.reconciliation])).toEqual([
      [0, 'created', 'applied'],
      [1, 'rejected', null],
      [2, 'rejected', null],
      [3, 'duplicate', 'applied'],
      [4, 'duplicate', 'applied'],
      [5, 'rejected', null],
      [6, 'rejected', null],
      [7, 'created', 'unmatched'],
    ]);
    expect(res.body.payload).toMatchObject({ created: 2, duplicates: 2, rejected: 4 });
    expect(results[0]).toMatchObject({ ok: true, duplicate: false, errors: [] });
    expect(results[3]).toMatchObject({ ok: true, duplicate: true, event_id: storedEvent.event_id });
    expect(results[4].event_id).toBe(results[0].event_id);
    expect(results[1]).toMatchObject({ ok: false, event_id: null, duplicate: false });
    expect(results[1].errors).toEqual([
      { loc: ['body', 'events', 1, 'source_event_id'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'events', 1, 'event_type'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'events', 1, 'occurred_at'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'events', 1, 'payload'], msg: 'Field required', type: 'missing' },
    ]);
    expect(results[2].errors).toEqual([
      expect.objectContaining({
        loc: ['body', 'events', 2, 'source_family'],
        type: 'string_pattern_mismatch',
      }),
    ]);
    expect(results[5].errors).toEqual([
      expect.objectContaining({ loc: ['body', 'events', 5, 'payload'], type: 'too_long' }),
    ]);
    expect(results[6].errors).toEqual([
      expect.objectContaining({ loc: ['body', 'events', 6, 'payload'], type: 'missing' }),
    ]);
    expect((await stateOf(object._id)).fields).toEqual({ status: 'down' });
    const got = await get<EventView>(`/v1/external-events/${results[0].event_id}`);
    expect(got.body.payload).toMatchObject({ source_event_id: good.source_event_id });
  });

  it('answers 422 for an empty batch, more than 500 events, an item that is not an object, or no events field', async () => {
    const scalar = await ingestBatch([event(), 'not an event']);
    expect(scalar.status).toBe(422);
    expect(scalar.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'events', 1], type: 'model_attributes_type' }),
    ]);
    const empty = await ingestBatch([]);
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'events'], type: 'too_short' }),
    ]);
    const many = await ingestBatch(Array.from({ length: 501 }, () => ({})));
    expect(many.status).toBe(422);
    expect(many.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'events'], type: 'too_long' }),
    ]);
    const none = await call<Envelope<unknown>>(
      app.url,
      'POST',
      '/v1/external-events/ingest-batch',
      {
        key: key.apiKey,
        body: { items: [] },
      },
    );
    expect(none.status).toBe(422);
  });

  it('takes 500 events at once across objects', async () => {
    const objects = await Promise.all(Array.from({ length: 10 }, () => worldObject()));
    const events = Array.from({ length: 500 }, (_, i) =>
      event({
        world_object_ref: objects[i % 10]._id,
        occurred_at: new Date(Date.UTC(2025, 2, 1, 10, 0, i)).toISOString(),
        payload: { seq: i },
      }),
    );
    const res = await ingestBatch(events);
    expect(res.status).toBe(200);
    expect(res.body.payload).toMatchObject({ created: 500, duplicates: 0, rejected: 0 });
    for (const [n, object] of objects.entries()) {
      const state = await stateOf(object._id);
      expect(state.fields).toEqual({ seq: 490 + n });
      expect(state.generation).toBe(50);
    }
  });
});

describe('reading events', () => {
  it('GET /v1/external-events/{id}: 404 unknown, and 404 malformed (never issued)', async () => {
    expect((await get(`/v1/external-events/${newId('evt')}`)).status).toBe(404);
    const bad = await get('/v1/external-events/nope');
    expect(bad.status).toBe(404);
    expect(bad.body.error).toMatchObject({ code: 'not_found', parameter: 'event_id' });
  });

  it('GET /v1/external-events/reconciliation/{id}: the output, or 404', async () => {
    const object = await worldObject();
    const created = expectCreated(await ingest(event({ world_object_ref: object._id })));
    const res = await get<ReconciliationView>(
      `/v1/external-events/reconciliation/${created.event.event_id}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.payload).toEqual(created.reconciliation);
    expect((await get(`/v1/external-events/reconciliation/${newId('evt')}`)).status).toBe(404);
  });

  it('GET /v1/external-events/history: newest first, filtered, paged with a cursor', async () => {
    const object = await worldObject();
    const family = `hist.${process.pid}.${Date.now()}`;
    const ids: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const res = await ingest(
        event({
          source_family: family,
          world_object_ref: i % 2 === 0 ? object._id : undefined,
          occurred_at: new Date(Date.UTC(2025, 2, 1, 10, i)).toISOString(),
          payload: { i },
        }),
      );
      ids.push(expectCreated(res).event.event_id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: HttpResult<Page<EventView>> = await get(
        `/v1/external-events/history?source_family=${family}&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.payload.items.map((e) => e.event_id));
      for (const item of res.body.payload.items) {
        expect(item.source_family).toBe(family);
        expect(item.reconciliation).toMatch(/^(applied|unmatched)$/);
      }
      cursor = res.body.payload.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());

    const about = await get<{ items: EventView[]; next_cursor: string | null }>(
      `/v1/external-events/history?world_object_ref=${object._id}`,
    );
    expect(about.body.payload.items.map((e) => e.event_id)).toEqual([
      ids[6],
      ids[4],
      ids[2],
      ids[0],
    ]);
    expect(about.body.payload.next_cursor).toBeNull();

    const all = await get<{ items: EventView[] }>('/v1/external-events/history');
    expect(all.body.payload.items.length).toBe(50);

    for (const query of ['limit=0', 'limit=501', 'cursor=bm90LWEtY3Vyc29y', 'source_family=BAD']) {
      const res = await get(`/v1/external-events/history?${query}`);
      expect(res.status).toBe(422);
    }
  });
});

describe('GET /v1/worlds/external-state', () => {
  it('lists objects that events reached, by kind, paged', async () => {
    const kind = `fleet${Date.now()}`;
    const objects = await Promise.all(Array.from({ length: 5 }, () => worldObject(kind)));
    await worldObject(kind); // never reached by an event: not listed
    for (const object of objects) {
      expectCreated(await ingest(event({ world_object_ref: object._id, payload: { up: true } })));
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: HttpResult<Page<StateView>> = await get(
        `/v1/worlds/external-state?kind=${kind}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.payload.items.map((s) => s.object_id));
      cursor = res.body.payload.next_cursor;
    } while (cursor);
    expect(seen).toEqual(objects.map((o) => o._id).sort());
    const none = await get<{ items: StateView[] }>(
      `/v1/worlds/external-state?object_id=${newId('obj')}`,
    );
    expect(none.body.payload.items).toEqual([]);
    expect((await get('/v1/worlds/external-state?cursor=abc')).status).toBe(422);
  });
});

describe('recovery', () => {
  it('finishes a pass that committed a revision but died before recording it', async () => {
    const object = await worldObject();
    const first = expectCreated(
      await ingest(event({ world_object_ref: object._id, payload: { status: 'up' } })),
    );
    // Simulate a crash after the commit of revision 2: the chain has it, nothing else does.
    const committedAt = new Date().toISOString();
    const state1 = (await app.deps.repos.worldExternalState.findRevision(object._id, 1))!.state;
    const historyId = newId('evt');
    await storedIn(app.deps.db).externalStateRevisions.insertOne({
      _id: `${object._id}:2`,
      object_id: object._id,
      revision: 2,
      state: {
        ...state1,
        revision: 2,
        generation: 2,
        observed_generation: 2,
        fields: { status: 'down' },
        provenance: {
          status: { ...state1.provenance['status'], occurred_at: '2025-03-05T00:00:00.000Z' },
        },
      },
      history: {
        _id: historyId,
        kind: 'object.external_state_changed',
        object_id: object._id,
        at: committedAt,
        change: { revision: 2 },
      },
      committed_at: committedAt,
    });
    const pending = await stateOf(object._id);
    expect(pending).toMatchObject({ generation: 2, observed_generation: 1, revision: 2 });
    expect(pending.conditions.find((c) => c.type === 'Reconciled')).toMatchObject({
      status: 'False',
      reason: 'RecordingPending',
    });

    // The next pass about the object finds revision 2 taken, follows the chain and records it.
    expectCreated(await ingest(event({ world_object_ref: object._id, payload: { owner: 'ada' } })));
    const state = await stateOf(object._id);
    expect(state).toMatchObject({
      revision: 3,
      generation: 3,
      observed_generation: 3,
      fields: { status: 'down', owner: 'ada' },
    });
    expect(await storedIn(app.deps.db).worldHistory.findOne({ _id: historyId })).not.toBeNull();
    expect(first.reconciliation.revision).toBe(1);
  });

  it('completes an event whose ingest died between its claim and its reconciliation', async () => {
    const object = await worldObject();
    const body = event({ world_object_ref: object._id, payload: { status: 'maintenance' } });
    const eventId = newId('evt');
    const { eventKey } = await import('../../src/domain/external-events/external-events.service');
    await storedIn(app.deps.db).externalEvents.insertOne({
      _id: eventKey(body.source_family, body.source_event_id),
      event_id: eventId,
      source_family: body.source_family,
      source_event_id: body.source_event_id,
      event_type: body.event_type,
      occurred_at: body.occurred_at,
      received_at: new Date().toISOString(),
      world_object_ref: object._id,
      shared_context_id: null,
      payload: body.payload,
      payload_sha256: '0'.repeat(64),
    });
    const before = await get<EventView>(`/v1/external-events/${eventId}`);
    expect(before.status).toBe(200);
    expect(before.body.payload.reconciliation).toBeUndefined();
    const missing = await get(`/v1/external-events/reconciliation/${eventId}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error?.message).toContain('send the event again');

    const again = await ingest(body);
    expect(again.status).toBe(200);
    expect(again.body.payload).toMatchObject({
      duplicate: true,
      event: { event_id: eventId, reconciliation: 'applied' },
      reconciliation: { outcome: 'applied', applied_fields: ['status'] },
    });
    expect((await stateOf(object._id)).fields).toEqual({ status: 'maintenance' });
  });
});
