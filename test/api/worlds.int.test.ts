import { testSealedRecords } from '../helpers/sealed-records';
import { storedIn } from '../helpers/collections';
import { demoWorld, seedDemoWorld } from '../../src/domain/world/demo-world';
import { TASK_TRANSITIONS } from '../../src/domain/world/task-states';
import type { TaskState } from '../../src/domain/world/schemas';
import { newId } from '../../src/lib/ids';
import { createRepos, ensureIndexes } from '../../src/store';
import { connectMongo } from '../../src/store/mongo';
import { call, type HttpResult } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { freshDbName, startTestApp, type TestApp } from '../helpers/test-app';
import { testMongoUri } from '../test-env';

interface ObjectView {
  object_id: string;
  kind: string;
  name: string;
  attributes: Record<string, unknown>;
  external_state: unknown;
  version: number;
  created_at: string;
  updated_at: string;
}
interface RelationshipView {
  relationship_id: string;
  from: string;
  to: string;
  kind: string;
}
interface EventView {
  event_id: string;
  kind: string;
  object_id?: string;
  task_id?: string;
  object_refs?: string[];
  at: string;
  change: Record<string, unknown>;
}
interface TaskView {
  task_id: string;
  title: string;
  state: TaskState;
  object_refs: string[];
  shared_context_id?: string;
  version: number;
  previous_state?: TaskState;
}
interface Page<T> {
  items: T[];
  next_cursor: string | null;
}
interface StateView {
  world_state: { objects: ObjectView[]; history_head: string | null; object_count: number };
  next_cursor: string | null;
}
type Body<T> = {
  ok: boolean;
  payload: T;
  error: { code: string; message: string } & Record<string, unknown>;
  detail: unknown;
};

let app: TestApp;
/** Reads go through a strategic key (sandbox's 60 requests a minute would not last the file). */
let reader: TestKey;
let sandbox: TestKey;
let writer: TestKey;
const demo = demoWorld(new Date().toISOString());
const demoObject = (key: number) => demo.objects[key]._id;
const PAYMENTS_API = demoObject(1);

beforeAll(async () => {
  app = await startTestApp('worlds');
  reader = await createTestKey(app, { entitlement: 'strategic', accessLayer: 0 });
  sandbox = await createTestKey(app, { entitlement: 'sandbox', accessLayer: 0 });
  writer = await createTestKey(app, { entitlement: 'institutional', accessLayer: 0 });
});
afterAll(() => app.close());

const get = <T>(path: string) => call<Body<T>>(app.url, 'GET', path, { key: reader.apiKey });
const createTask = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call<Body<TaskView>>(app.url, 'POST', '/v1/worlds/tasks', {
    key: writer.apiKey,
    body,
    headers,
  });
const patchTask = (taskId: string, body: Record<string, unknown>) =>
  call<Body<TaskView>>(app.url, 'PATCH', `/v1/worlds/tasks/${taskId}`, {
    key: writer.apiKey,
    body,
  });
const head = async () => (await get<StateView>('/v1/worlds/state')).body.payload.world_state;
const taskEvents = (taskId: string) =>
  storedIn(app.deps.db).worldHistory.find({ task_id: taskId }).toArray();

/** Follows `next_cursor` to the end; returns every item's id in order. */
async function pageAll<T>(path: string, idOf: (item: T) => string, between?: () => Promise<void>) {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const url: string = cursor ? `${path}${sep}cursor=${cursor}` : path;
    const res: HttpResult<Body<Page<T>>> = await get<Page<T>>(url);
    expect(res.status).toBe(200);
    ids.push(...res.body.payload.items.map(idOf));
    cursor = res.body.payload.next_cursor;
    if (between) await between();
  } while (cursor);
  return ids;
}

describe('the demo world of a fresh database', () => {
  it('has a handful of objects of several kinds, their relationships and creation history', async () => {
    const objects = await get<Page<ObjectView>>('/v1/worlds/objects');
    expect(objects.status).toBe(200);
    const items = objects.body.payload.items;
    expect(items.map((o) => o.object_id)).toEqual(demo.objects.map((o) => o._id));
    expect(new Set(items.map((o) => o.kind))).toEqual(
      new Set(['team', 'service', 'dataset', 'document']),
    );
    expect(objects.body.payload.next_cursor).toBeNull();
    for (const object of items) {
      expect(object).toMatchObject({ version: 1, external_state: null });
      expect(object.object_id).toMatch(/^obj_[0-9A-Z]{26}$/);
      expect(Object.keys(object.attributes).length).toBeGreaterThan(0);
      expect(object.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(await storedIn(app.deps.db).worldRelationships.countDocuments()).toBe(7);
    const history = await get<Page<EventView>>('/v1/worlds/history?limit=500');
    expect(history.body.payload.items.map((e) => e.kind).sort()).toEqual([
      ...Array<string>(6).fill('object.created'),
      ...Array<string>(7).fill('relationship.created'),
    ]);
    expect((await head()).history_head).toBe(demo.events[demo.events.length - 1]._id);
  });

  it('is seeded once: seeding again writes nothing, an interrupted seed is completed', async () => {
    const { repos } = app.deps;
    expect(await seedDemoWorld(repos, new Date().toISOString())).toBe(0);
    expect(await storedIn(app.deps.db).worldObjects.countDocuments()).toBe(6);
    expect(await storedIn(app.deps.db).worldHistory.countDocuments()).toBe(13);

    // A seed that died before its last two writes.
    const lastEvent = demo.events[demo.events.length - 1]._id;
    await storedIn(app.deps.db).worldHistory.deleteOne({ _id: lastEvent });
    await storedIn(app.deps.db).worldRelationships.deleteOne({ _id: demo.relationships[6]._id });
    expect(await seedDemoWorld(repos, new Date().toISOString())).toBe(2);
    expect(await seedDemoWorld(repos, new Date().toISOString())).toBe(0);
    expect(await storedIn(app.deps.db).worldRelationships.countDocuments()).toBe(7);
    expect(await storedIn(app.deps.db).worldHistory.countDocuments()).toBe(13);
  });

  it('leaves a world that already holds other objects alone', async () => {
    const db = app.deps.mongo.db(freshDbName('worlds_notfresh'));
    try {
      const repos = createRepos(db, testSealedRecords());
      await ensureIndexes(db);
      const now = new Date().toISOString();
      await repos.worldObjects.insert({
        _id: newId('obj'),
        kind: 'service',
        name: 'Existing',
        attributes: {},
        external_state: {},
        version: 1,
        created_at: now,
        updated_at: now,
      });
      expect(await seedDemoWorld(repos, now)).toBe(0);
      expect(await storedIn(db).worldObjects.countDocuments()).toBe(1);
    } finally {
      await db.dropDatabase();
    }
  });

  it('is written exactly once when several instances seed a fresh database at once', async () => {
    const dbName = freshDbName('worlds_boot');
    // One connection per "instance", as separate api processes would have.
    const instances = await Promise.all(
      [1, 2, 3, 4].map(() => connectMongo(testMongoUri(), dbName)),
    );
    try {
      const repos = instances.map(({ db }) => createRepos(db, testSealedRecords()));
      await ensureIndexes(instances[0].db);
      const now = new Date().toISOString();
      const written = await Promise.all(repos.map((r) => seedDemoWorld(r, now)));
      expect(written.reduce((a, b) => a + b, 0)).toBe(6 + 7 + 13);
      expect(await storedIn(instances[0].db).worldObjects.countDocuments()).toBe(6);
      expect(await storedIn(instances[0].db).worldRelationships.countDocuments()).toBe(7);
      expect(await storedIn(instances[0].db).worldHistory.countDocuments()).toBe(13);
    } finally {
      await instances[0].db.dropDatabase();
      for (const { client } of instances) await client.close();
    }
  });
});

describe('GET /v1/worlds/objects and /objects/{id}', () => {
  it('filters by kind and pages in id order with a keyset cursor', async () => {
    const services = await get<Page<ObjectView>>('/v1/worlds/objects?kind=service');
    expect(services.body.payload.items.map((o) => o.name)).toEqual([
      'Payments API',
      'Ledger worker',
    ]);
    const first = await get<Page<ObjectView>>('/v1/worlds/objects?limit=4');
    expect(first.body.payload.items).toHaveLength(4);
    expect(first.body.payload.next_cursor).toEqual(expect.any(String));
    const ids = await pageAll<ObjectView>('/v1/worlds/objects?limit=4', (o) => o.object_id);
    expect(ids).toEqual(demo.objects.map((o) => o._id));
    expect(await pageAll<ObjectView>('/v1/worlds/objects?limit=1', (o) => o.object_id)).toEqual(
      ids,
    );
    const none = await get<Page<ObjectView>>('/v1/worlds/objects?kind=spaceship');
    expect(none.body.payload).toEqual({ items: [], next_cursor: null });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=501', 'limit'],
    ['kind=Bad%20Kind', 'kind'],
    ['cursor=not*base64', 'cursor'],
    ['cursor=bm90LWpzb24', 'cursor'],
  ])('rejects %s with 422 at query.%s', async (query, field) => {
    const res = await get<unknown>(`/v1/worlds/objects?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect((res.body.detail as { loc: string[] }[])[0].loc).toEqual(['query', field]);
  });

  it('rejects a cursor of another list', async () => {
    const history = await get<Page<EventView>>('/v1/worlds/history?limit=1');
    const res = await get<unknown>(`/v1/worlds/objects?cursor=${history.body.payload.next_cursor}`);
    expect(res.status).toBe(422);
  });

  it('returns one object, 404 for an unknown id and for a malformed one', async () => {
    const one = await get<ObjectView>(`/v1/worlds/objects/${PAYMENTS_API}`);
    expect(one.status).toBe(200);
    expect(one.body.payload).toMatchObject({
      object_id: PAYMENTS_API,
      kind: 'service',
      name: 'Payments API',
      attributes: { tier: 'critical' },
      version: 1,
    });
    expect(one.body.payload).not.toHaveProperty('_id');
    const unknown = await get<unknown>(`/v1/worlds/objects/${newId('obj')}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    // A path id the server never issued is unknown (issue 10, risk 9): 404, not 422.
    expect((await get<unknown>('/v1/worlds/objects/tsk_01JABCDEFGHJKMNPQRSTVWXYZ0')).status).toBe(
      404,
    );
  });
});

describe('GET /v1/worlds/objects/{id}/relationships', () => {
  const path = `/v1/worlds/objects/${PAYMENTS_API}/relationships`;

  it('lists both directions by default, or one, optionally of one kind', async () => {
    const both = await get<Page<RelationshipView>>(path);
    expect(both.status).toBe(200);
    expect(both.body.payload.items.map((r) => r.kind).sort()).toEqual([
      'depends_on',
      'documents',
      'owns',
      'reads_from',
    ]);
    const out = await get<Page<RelationshipView>>(`${path}?direction=out`);
    expect(out.body.payload.items.every((r) => r.from === PAYMENTS_API)).toBe(true);
    expect(out.body.payload.items.map((r) => r.kind).sort()).toEqual(['depends_on', 'reads_from']);
    const incoming = await get<Page<RelationshipView>>(`${path}?direction=in`);
    expect(incoming.body.payload.items.every((r) => r.to === PAYMENTS_API)).toBe(true);
    expect(incoming.body.payload.items).toHaveLength(2);
    const owns = await get<Page<RelationshipView>>(`${path}?kind=owns`);
    expect(owns.body.payload.items).toEqual([
      {
        relationship_id: expect.stringMatching(/^rel_/),
        from: demoObject(0),
        to: PAYMENTS_API,
        kind: 'owns',
        created_at: expect.any(String),
      },
    ]);
    const paged = await pageAll<RelationshipView>(`${path}?limit=1`, (r) => r.relationship_id);
    expect(paged).toEqual(both.body.payload.items.map((r) => r.relationship_id));
  });

  it('answers 404 for an unknown object and 422 for a bad direction', async () => {
    const unknown = await get<unknown>(`/v1/worlds/objects/${newId('obj')}/relationships`);
    expect(unknown.status).toBe(404);
    const bad = await get<unknown>(`${path}?direction=sideways`);
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toMatchObject([{ loc: ['query', 'direction'], type: 'enum' }]);
  });
});

describe('GET /v1/worlds/history and /v1/worlds/state', () => {
  it('lists events newest first, filtered by object or kind, and pages', async () => {
    const all = await get<Page<EventView>>('/v1/worlds/history?limit=500');
    const items = all.body.payload.items;
    const order = [...items].sort((a, b) =>
      a.at === b.at ? b.event_id.localeCompare(a.event_id) : b.at.localeCompare(a.at),
    );
    expect(items).toEqual(order);
    const about = await get<Page<EventView>>(`/v1/worlds/history?object_id=${PAYMENTS_API}`);
    const kinds = about.body.payload.items.map((e) => e.kind);
    expect(kinds.filter((k) => k === 'object.created')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'relationship.created')).toHaveLength(4);
    const created = await get<Page<EventView>>('/v1/worlds/history?kind=object.created');
    expect(created.body.payload.items).toHaveLength(6);
    const paged = await pageAll<EventView>('/v1/worlds/history?limit=5', (e) => e.event_id);
    expect(paged).toEqual(items.map((e) => e.event_id));
    expect((await get<unknown>('/v1/worlds/history?object_id=nope')).status).toBe(422);
    const objectCursor = (await get<Page<ObjectView>>('/v1/worlds/objects?limit=1')).body.payload
      .next_cursor;
    expect((await get<unknown>(`/v1/worlds/history?cursor=${objectCursor}`)).status).toBe(422);
  });

  it('gives the first page of objects, their count and the history head', async () => {
    const state = await get<StateView>('/v1/worlds/state?limit=2');
    expect(state.status).toBe(200);
    expect(state.body.ok).toBe(true);
    const { world_state, next_cursor } = state.body.payload;
    expect(world_state.objects.map((o) => o.object_id)).toEqual([demoObject(0), demoObject(1)]);
    expect(world_state.object_count).toBe(6);
    const newest = await get<Page<EventView>>('/v1/worlds/history?limit=1');
    expect(world_state.history_head).toBe(newest.body.payload.items[0].event_id);
    const next = await get<StateView>(`/v1/worlds/state?limit=2&cursor=${next_cursor}`);
    expect(next.body.payload.world_state.objects[0].object_id).toBe(demoObject(2));
    const documents = await get<StateView>('/v1/worlds/state?kind=document');
    expect(documents.body.payload.world_state.object_count).toBe(2);
    expect(documents.body.payload.next_cursor).toBeNull();
  });
});

describe('GET /v1/worlds/state while another process writes', () => {
  it('reflects every write of another process at once, though served from a cache', async () => {
    // Another process (the worker, a second api instance) with its own connection and repos.
    const other = await connectMongo(testMongoUri(), app.dbName);
    try {
      const repos = createRepos(other.db, testSealedRecords());
      const first = (await head()).history_head;
      expect((await head()).history_head).toBe(first);
      const object = (await get<ObjectView>(`/v1/worlds/objects/${PAYMENTS_API}`)).body.payload;
      const actionId = newId('act');
      const now = new Date().toISOString();
      expect(
        await repos.worldObjects.patchAtVersion(
          PAYMENTS_API,
          object.version,
          { tier: 'gold' },
          actionId,
          now,
        ),
      ).toBe(true);
      const patched = (await head()).objects.find((o) => o.object_id === PAYMENTS_API);
      expect(patched).toMatchObject({ version: object.version + 1, attributes: { tier: 'gold' } });

      const event = { _id: newId('evt'), kind: 'object.updated', at: now, change: {} };
      await repos.worldHistory.appendOnce(event);
      expect((await head()).history_head).toBe(event._id);

      const count = (await head()).object_count;
      await repos.worldObjects.insert({
        _id: newId('obj'),
        kind: 'probe',
        name: 'from another process',
        attributes: {},
        external_state: {},
        version: 1,
        created_at: now,
        updated_at: now,
      });
      expect((await head()).object_count).toBe(count + 1);
    } finally {
      await other.client.close();
    }
  });
});

describe('POST /v1/worlds/tasks', () => {
  it('creates an open task (201) and records task.created, moving history_head', async () => {
    const before = (await head()).history_head;
    const res = await createTask({ title: 'Investigate ledger lag' });
    expect(res.status).toBe(201);
    const task = res.body.payload;
    expect(task).toMatchObject({
      title: 'Investigate ledger lag',
      state: 'open',
      object_refs: [],
      version: 1,
    });
    expect(task.task_id).toMatch(/^tsk_[0-9A-Z]{26}$/);
    expect(task).not.toHaveProperty('shared_context_id');
    const after = (await head()).history_head;
    expect(after).not.toBe(before);
    const event = (await get<Page<EventView>>('/v1/worlds/history?limit=1')).body.payload.items[0];
    expect(event).toMatchObject({
      event_id: after,
      kind: 'task.created',
      task_id: task.task_id,
      change: { after: { title: 'Investigate ledger lag', state: 'open' }, version: 1 },
    });
  });

  it('takes object refs, a shared context and an initial state', async () => {
    const res = await createTask({
      title: 'Patch the ledger worker',
      object_refs: [demoObject(2), PAYMENTS_API],
      shared_context_id: 'incident:2025-07',
      state: 'in_progress',
    });
    expect(res.status).toBe(201);
    expect(res.body.payload).toMatchObject({
      state: 'in_progress',
      object_refs: [demoObject(2), PAYMENTS_API],
      shared_context_id: 'incident:2025-07',
    });
    const about = await get<Page<EventView>>(`/v1/worlds/history?object_id=${demoObject(2)}`);
    expect(about.body.payload.items[0]).toMatchObject({
      kind: 'task.created',
      task_id: res.body.payload.task_id,
    });
  });

  it('answers 422 naming unknown object refs, and creates nothing', async () => {
    const before = (await head()).history_head;
    const unknown = newId('obj');
    const res = await createTask({ title: 'Orphan', object_refs: [PAYMENTS_API, unknown] });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.detail).toEqual([
      {
        loc: ['body', 'object_refs', 1],
        msg: `Unknown world object ${unknown}`,
        type: 'value_error',
      },
    ]);
    expect((await head()).history_head).toBe(before);
    expect(await storedIn(app.deps.db).worldTasks.countDocuments({ title: 'Orphan' })).toBe(0);
  });

  it.each([
    [{}, ['body', 'title'], 'missing'],
    [{ title: 'x', priority: 1 }, ['body', 'priority'], 'extra_forbidden'],
    [{ title: 'x', state: 'done' }, ['body', 'state'], 'enum'],
    [
      { title: 'x', object_refs: ['not-an-id'] },
      ['body', 'object_refs', 0],
      'string_pattern_mismatch',
    ],
    [{ title: 'x', object_refs: [PAYMENTS_API, PAYMENTS_API] }, ['body', 'object_refs'], undefined],
    [{ title: '' }, ['body', 'title'], 'string_too_short'],
  ])('rejects %j with 422', async (body, loc, type) => {
    const res = await createTask(body);
    expect(res.status).toBe(422);
    const issue = (res.body.detail as { loc: unknown[]; type: string }[])[0];
    expect(issue.loc).toEqual(loc);
    if (type) expect(issue.type).toBe(type);
  });

  it('needs an institutional key (worlds_mutation) and honours Idempotency-Key', async () => {
    const denied = await call<Body<unknown>>(app.url, 'POST', '/v1/worlds/tasks', {
      key: sandbox.apiKey,
      body: { title: 'nope' },
    });
    expect(denied.status).toBe(403);
    const reads = await call(app.url, 'GET', '/v1/worlds/state', { key: sandbox.apiKey });
    expect(reads.status).toBe(200);
    const headers = { 'Idempotency-Key': `task-${newId('req')}` };
    const first = await createTask({ title: 'Once' }, headers);
    const again = await createTask({ title: 'Once' }, headers);
    expect(again.status).toBe(201);
    expect(again.body.payload.task_id).toBe(first.body.payload.task_id);
    expect(await storedIn(app.deps.db).worldTasks.countDocuments({ title: 'Once' })).toBe(1);
  });
});

/** A new task brought to `state` through legal transitions; returns it. */
async function taskIn(state: TaskState): Promise<TaskView> {
  const initial = state === 'done' ? 'in_progress' : state === 'cancelled' ? 'open' : state;
  let task = (await createTask({ title: `to ${state}`, state: initial })).body.payload;
  if (state === 'done' || state === 'cancelled') {
    task = (await patchTask(task.task_id, { state, expected_version: 1 })).body.payload;
  }
  expect(task.state).toBe(state);
  return task;
}

const LEGAL = (Object.keys(TASK_TRANSITIONS) as TaskState[]).flatMap((from) =>
  TASK_TRANSITIONS[from].map((to) => [from, to] as const),
);

describe('PATCH /v1/worlds/tasks/{id}: the state machine', () => {
  it('has the transitions of docs/world.md', () => {
    expect(LEGAL.map(([a, b]) => `${a}>${b}`).sort()).toEqual(
      [
        'open>in_progress',
        'open>blocked',
        'open>cancelled',
        'in_progress>blocked',
        'in_progress>done',
        'in_progress>cancelled',
        'in_progress>open',
        'blocked>in_progress',
        'blocked>cancelled',
      ].sort(),
    );
  });

  it.each(LEGAL)('%s → %s is 200, bumps the version and appends an event', async (from, to) => {
    const task = await taskIn(from);
    const before = (await head()).history_head;
    const res = await patchTask(task.task_id, { state: to, expected_version: task.version });
    expect(res.status).toBe(200);
    expect(res.body.payload).toMatchObject({
      task_id: task.task_id,
      state: to,
      previous_state: from,
      version: task.version + 1,
    });
    const state = await head();
    expect(state.history_head).not.toBe(before);
    const event = (await get<Page<EventView>>('/v1/worlds/history?limit=1')).body.payload.items[0];
    expect(event).toMatchObject({
      event_id: state.history_head,
      kind: 'task.updated',
      task_id: task.task_id,
      change: { state: { from, to }, version: task.version + 1 },
    });
  });

  it.each([
    ['open', 'done'],
    ['blocked', 'open'],
    ['blocked', 'done'],
    ['done', 'open'],
    ['done', 'cancelled'],
    ['done', 'done'],
    ['cancelled', 'in_progress'],
    ['cancelled', 'cancelled'],
  ] as const)('%s → %s is 409 invalid_state and changes nothing', async (from, to) => {
    const task = await taskIn(from);
    const before = (await head()).history_head;
    const res = await patchTask(task.task_id, { state: to });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'invalid_state',
      state: from,
      allowed: TASK_TRANSITIONS[from],
    });
    expect((await head()).history_head).toBe(before);
    expect((await taskEvents(task.task_id)).length).toBe(task.version);
  });

  it('retitles in place (same state) as a change; the same state alone changes nothing', async () => {
    const task = await taskIn('open');
    const renamed = await patchTask(task.task_id, { state: 'open', title: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.payload).toMatchObject({ title: 'Renamed', version: 2, state: 'open' });
    const event = (await get<Page<EventView>>('/v1/worlds/history?limit=1')).body.payload.items[0];
    expect(event.change).toEqual({ title: { from: 'to open', to: 'Renamed' }, version: 2 });
    const before = (await head()).history_head;
    const same = await patchTask(task.task_id, { state: 'open', title: 'Renamed' });
    expect(same.status).toBe(200);
    expect(same.body.payload).toMatchObject({ version: 2, previous_state: 'open' });
    expect((await head()).history_head).toBe(before);
  });

  it('answers 404 for an unknown or malformed task id and 422 for malformed input', async () => {
    const unknown = await patchTask(newId('tsk'), { state: 'done' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    expect((await patchTask('obj_01JABCDEFGHJKMNPQRSTVWXYZ0', { state: 'done' })).status).toBe(404);
    const task = await taskIn('open');
    const missing = await patchTask(task.task_id, { expected_version: 1 });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toMatchObject([{ loc: ['body', 'state'], type: 'missing' }]);
    const negative = await patchTask(task.task_id, { state: 'blocked', expected_version: -1 });
    expect(negative.status).toBe(422);
  });
});

describe('PATCH /v1/worlds/tasks/{id}: versions', () => {
  it('answers 409 conflict for a stale expected_version, before judging the transition', async () => {
    const task = await taskIn('open');
    await patchTask(task.task_id, { state: 'in_progress', expected_version: 1 });
    const stale = await patchTask(task.task_id, { state: 'done', expected_version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'conflict', current_version: 2 });
    const illegalAndStale = await patchTask(task.task_id, { state: 'open', expected_version: 7 });
    expect(illegalAndStale.body.error.code).toBe('conflict');
    const fresh = await patchTask(task.task_id, { state: 'done', expected_version: 2 });
    expect(fresh.status).toBe(200);
  });

  it('lets exactly one of 10 concurrent updates of the same version win', async () => {
    for (let round = 0; round < 3; round += 1) {
      const task = await taskIn('open');
      const targets: TaskState[] = ['in_progress', 'blocked', 'cancelled'];
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          patchTask(task.task_id, { state: targets[i % 3], expected_version: 1 }),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(9);
      for (const r of results.filter((x) => x.status === 409)) {
        expect(r.body.error.code).toBe('conflict');
      }
      const winner = results.find((r) => r.status === 200)!.body.payload;
      const events = await taskEvents(task.task_id);
      expect(events.map((e) => e.kind).sort()).toEqual(['task.created', 'task.updated']);
      const stored = await app.deps.repos.worldTasks.findById(task.task_id);
      expect(stored).toMatchObject({ version: 2, state: winner.state });
    }
  });

  it('without expected_version, concurrent updates apply one after another, none lost', async () => {
    const task = await taskIn('in_progress');
    const results = await Promise.all(
      Array.from({ length: 10 }, () => patchTask(task.task_id, { state: 'blocked' })),
    );
    expect(results.map((r) => r.status)).toEqual(Array<number>(10).fill(200));
    expect(results.filter((r) => r.body.payload.previous_state === 'in_progress')).toHaveLength(1);
    expect(await app.deps.repos.worldTasks.findById(task.task_id)).toMatchObject({
      state: 'blocked',
      version: 2,
    });
    expect((await taskEvents(task.task_id)).length).toBe(2);
  });

  it('finishes the work of a writer that claimed a version and died', async () => {
    const task = await taskIn('open');
    const { repos } = app.deps;
    const stored = (await repos.worldTasks.findById(task.task_id))!;
    const now = new Date().toISOString();
    const orphan = {
      _id: newId('evt'),
      kind: 'task.updated',
      task_id: task.task_id,
      object_refs: [],
      at: now,
      change: { state: { from: 'open', to: 'blocked' }, version: 2 },
    };
    // Claimed version 2, then died before the history event and the current record.
    await repos.worldTasks.claimVersion(
      { ...stored, state: 'blocked', version: 2, updated_at: now },
      orphan,
    );
    const stale = await patchTask(task.task_id, { state: 'in_progress', expected_version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'conflict', current_version: 2 });
    expect(await repos.worldHistory.exists(orphan._id)).toBe(true);
    expect(await repos.worldTasks.findById(task.task_id)).toMatchObject({ version: 2 });
    const next = await patchTask(task.task_id, { state: 'in_progress', expected_version: 2 });
    expect(next.status).toBe(200);
    expect(next.body.payload).toMatchObject({ previous_state: 'blocked', version: 3 });
  });
});

describe('paging under concurrent inserts', () => {
  const probe = async (id: string) => {
    const now = new Date().toISOString();
    await app.deps.repos.worldObjects.insert({
      _id: id,
      kind: 'probe',
      name: id,
      attributes: {},
      external_state: {},
      version: 1,
      created_at: now,
      updated_at: now,
    });
  };
  /** An id that sorts before every existing one (lands behind the cursor). */
  const earlyId = () => `obj_00${newId('obj').slice(6)}`;

  it('objects: no item twice, none of those present at the start skipped', async () => {
    for (let i = 0; i < 30; i += 1) await probe(newId('obj'));
    const start = (await app.deps.repos.worldObjects.list({}, 1000)).map((o) => o._id);
    const inserted: string[] = [];
    const ids = await pageAll<ObjectView>(
      '/v1/worlds/objects?limit=7',
      (o) => o.object_id,
      async () => {
        const batch = [newId('obj'), earlyId(), newId('obj')];
        inserted.push(...batch);
        await Promise.all(batch.map(probe));
      },
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(start.filter((id) => !ids.includes(id))).toEqual([]);
    expect(ids.every((id) => start.includes(id) || inserted.includes(id))).toBe(true);
  });

  it('history: no event twice, none of those present at the start skipped', async () => {
    const start = (await app.deps.repos.worldHistory.list({}, 1000)).items.map((e) => e._id);
    const ids = await pageAll<EventView>(
      '/v1/worlds/history?limit=6',
      (e) => e.event_id,
      async () => {
        // New events (the head) while paging, and tasks that write their own.
        await app.deps.repos.worldHistory.appendOnce({
          _id: newId('evt'),
          kind: 'probe.inserted',
          at: new Date().toISOString(),
          change: {},
        });
        await createTask({ title: 'while paging' });
      },
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(start.filter((id) => !ids.includes(id))).toEqual([]);
  });
});
