import { createHash } from 'node:crypto';
import { newId } from '../../src/lib/ids';
import { proposeUpdate, seedRecordedObject } from '../helpers/actions';
import { storedIn } from '../helpers/collections';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Intentionality (docs/witnesses.md): what a record is about, and deterministic threads of the
// records about one subject, time-ordered and paged.
interface About {
  handle: string;
  kind: string;
  objects: {
    object_id: string;
    weight: number;
    thread_id: string;
    links: { kind: string; id: string }[];
  }[];
}
interface Thread {
  thread_id: string;
  subject: { kind: string; id: string };
  entries: { at: string; kind: string; id: string; what: string }[];
  total: number;
  next_cursor: string | null;
}

let app: TestApp;
let worker: TestWorker;
let key: TestKey;
const context = `ctx-about-${Date.now()}`;
const ids: Record<string, string> = {};

beforeAll(async () => {
  app = await startTestApp('intentionality');
  worker = await startTestWorker(app.deps);
  key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  ids['action'] = await proposeUpdate(app, key, {
    patch: { status: 'x' },
    shared_context_id: context,
  });
  const action = await storedIn(app.deps.db).actions.findOne({ _id: ids['action'] });
  ids['object'] = action!.target.world_object_ref!;
  ids['other'] = (await seedRecordedObject(app, { name: 'Other' }))._id;
  const event = await call<{ payload: { event: { event_id: string } } }>(
    app.url,
    'POST',
    '/v1/external-events/ingest',
    {
      key: key.apiKey,
      body: {
        source_family: 'crm',
        source_event_id: `about-${Date.now()}`,
        event_type: 'account.updated',
        occurred_at: '2026-01-01T00:00:00.000Z',
        world_object_ref: ids['object'],
        shared_context_id: context,
        payload: { tier: 'gold' },
      },
    },
  );
  ids['event'] = event.body.payload.event.event_id;
  const task = await call<{ payload: { task_id: string } }>(app.url, 'POST', '/v1/worlds/tasks', {
    key: key.apiKey,
    body: { title: 'both', object_refs: [ids['object'], ids['other']], shared_context_id: context },
  });
  ids['task'] = task.body.payload.task_id;
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const about = (handle: string) =>
  call<{ payload: About }>(app.url, 'GET', `/v1/aboutness?handle=${encodeURIComponent(handle)}`, {
    key: key.apiKey,
  });
const threadId = (subject: string) =>
  `thr_${createHash('sha256').update(subject).digest('hex').slice(0, 32)}`;

describe('GET /v1/aboutness', () => {
  it('says what each kind of record is about, with weights and links', async () => {
    // First, so the threads it names are issued by it alone.
    const ctx = await about(`ctx:${context}`);
    expect(ctx.body.payload.objects[0]).toMatchObject({ object_id: ids['object'], weight: 0.75 });
    // Every thread id an answer names can be read.
    const other = ctx.body.payload.objects.find((o) => o.object_id === ids['other'])!;
    const thread = await call(app.url, 'GET', `/v1/intentionality/threads/${other.thread_id}`, {
      key: key.apiKey,
    });
    expect(thread.status).toBe(200);
    const action = await about(ids['action']);
    expect(action.status).toBe(200);
    expect(action.body.payload).toMatchObject({
      kind: 'action',
      objects: [
        {
          object_id: ids['object'],
          weight: 1,
          thread_id: threadId(ids['object']),
          links: [{ kind: 'action', id: ids['action'] }],
        },
      ],
    });
    const task = await about(ids['task']);
    expect(task.body.payload.objects.map((o) => [o.object_id, o.weight]).sort()).toEqual(
      [
        [ids['object'], 0.5],
        [ids['other'], 0.5],
      ].sort(),
    );
    expect((await about(ids['event'])).body.payload.objects[0]?.object_id).toBe(ids['object']);
    expect((await about(ids['other'])).body.payload).toMatchObject({ kind: 'object' });
  });

  it('answers 404 for a handle that names nothing, 422 for a malformed one', async () => {
    expect((await about(newId('act'))).status).toBe(404);
    expect((await about('ctx:never-named')).status).toBe(404);
    expect((await about('nonsense')).status).toBe(422);
    expect((await about('abc_0123456789abcdef')).status).toBe(422);
    const missing = await call(app.url, 'GET', '/v1/aboutness', { key: key.apiKey });
    expect(missing.status).toBe(422);
  });
});

describe('threads', () => {
  it('are deterministic per object, time-ordered and paged without repeats', async () => {
    const list = await call<{ payload: { items: { thread_id: string }[] } }>(
      app.url,
      'GET',
      `/v1/intentionality/threads?object_id=${ids['object']}`,
      { key: key.apiKey },
    );
    expect(list.status).toBe(200);
    expect(list.body.payload.items).toEqual([
      expect.objectContaining({
        thread_id: threadId(ids['object']),
        subject: { kind: 'object', id: ids['object'] },
      }),
    ]);
    const read = (query: string) =>
      call<{ payload: Thread }>(
        app.url,
        'GET',
        `/v1/intentionality/threads/${threadId(ids['object'])}${query}`,
        { key: key.apiKey },
      );
    const whole = (await read('?limit=100')).body.payload;
    const kinds = whole.entries.map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['action', 'event', 'history']));
    expect(whole.entries.map((e) => e.id)).toEqual(
      expect.arrayContaining([ids['action'], ids['event']]),
    );
    const times = whole.entries.map((e) => e.at);
    expect([...times].sort()).toEqual(times);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Thread = (await read(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).body
        .payload;
      seen.push(...page.entries.map((e) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(whole.entries.map((e) => e.id));
    expect(whole.total).toBe(seen.length);
  });

  it('of a context come first in its list, then the objects it is about', async () => {
    const list = await call<{
      payload: { items: { thread_id: string; subject: { kind: string } }[] };
    }>(app.url, 'GET', `/v1/intentionality/threads?shared_context_id=${context}`, {
      key: key.apiKey,
    });
    expect(list.body.payload.items[0]).toMatchObject({
      thread_id: threadId(`ctx:${context}`),
      subject: { kind: 'context' },
    });
    const thread = await call<{ payload: Thread }>(
      app.url,
      'GET',
      `/v1/intentionality/threads/${threadId(`ctx:${context}`)}`,
      { key: key.apiKey },
    );
    expect(thread.body.payload.entries.map((e) => e.kind).sort()).toEqual([
      'action',
      'event',
      'task',
    ]);
  });

  it('answer 404 for a thread id never issued', async () => {
    const res = await call(app.url, 'GET', `/v1/intentionality/threads/${threadId('nothing')}`, {
      key: key.apiKey,
    });
    expect(res.status).toBe(404);
  });
});
