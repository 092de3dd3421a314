import { storedIn } from '../helpers/collections';
import { newId } from '../../src/lib/ids';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

interface SessionView {
  session_id: string;
  created_at: string;
  continuity_mode: 'preserve' | 'fresh';
  state: 'active' | 'closed';
  step_count: number;
  shared_context_id?: string;
  last_step_at: string | null;
}
interface StepView {
  session_id: string;
  step: number;
  command: string;
  output: Record<string, unknown>;
  state: 'active' | 'closed';
  continuity: {
    identity_stable: boolean;
    identity_digest: string;
    steps: number;
    memory_digest: string | null;
  };
}
type Issue = { loc: (string | number)[]; msg: string; type: string };
type Envelope<T> = {
  ok: boolean;
  payload: T;
  error?: { code: string; message: string; state?: string };
  detail?: unknown;
};

let app: TestApp;
let key: TestKey;
/** A kind only this file's objects have, so the demo world does not blur the counts. */
const KIND = `probe_${Date.now().toString(36)}`;

beforeAll(async () => {
  app = await startTestApp('sessions');
  // Sessions are a sandbox family (route-security checks that); a strategic key only for
  // its larger per-minute limit.
  key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 0 });
});
afterAll(() => app.close());

const create = (body: Record<string, unknown> = {}, onApp = app) =>
  call<Envelope<SessionView>>(onApp.url, 'POST', '/v1/sessions', { key: key.apiKey, body });
const get = (id: string) =>
  call<Envelope<SessionView>>(app.url, 'GET', `/v1/sessions/${id}`, { key: key.apiKey });
const step = (id: string, command: string, args?: Record<string, unknown>, onApp = app) =>
  call<Envelope<StepView>>(onApp.url, 'POST', `/v1/sessions/${id}/step`, {
    key: key.apiKey,
    body: { input_packet: args === undefined ? { command } : { command, args } },
  });

async function newSession(mode?: 'preserve' | 'fresh'): Promise<string> {
  const res = await create(mode ? { continuity_mode: mode } : {});
  expect(res.status).toBe(201);
  return res.body.payload.session_id;
}

async function worldObject(name: string, kind = KIND) {
  const now = new Date().toISOString();
  return app.deps.repos.worldObjects.insert({
    _id: newId('obj'),
    kind,
    name,
    attributes: { name },
    external_state: {},
    version: 1,
    created_at: now,
    updated_at: now,
  });
}

const issuesOf = (body: Envelope<unknown>): Issue[] => body.detail as Issue[];

describe('POST /v1/sessions', () => {
  it('creates a new active preserve session on every call', async () => {
    const first = await create();
    const second = await create();
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      ok: true,
      payload: { continuity_mode: 'preserve', state: 'active', step_count: 0, last_step_at: null },
    });
    expect(first.body.payload.session_id).toMatch(/^ses_[0-9A-Z]{26}$/);
    expect(first.body.payload.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(first.body.payload).not.toHaveProperty('shared_context_id');
    expect(second.body.payload.session_id).not.toBe(first.body.payload.session_id);
  });

  it('takes continuity_mode fresh and a shared context', async () => {
    const res = await create({ continuity_mode: 'fresh', shared_context_id: 'team.alpha:1' });
    expect(res.status).toBe(201);
    expect(res.body.payload).toMatchObject({
      continuity_mode: 'fresh',
      shared_context_id: 'team.alpha:1',
    });
  });

  it('rejects an unknown mode, unknown fields and a missing body with 422', async () => {
    const mode = await create({ continuity_mode: 'forever' });
    expect(mode.status).toBe(422);
    expect(issuesOf(mode.body)[0]).toMatchObject({
      loc: ['body', 'continuity_mode'],
      type: 'enum',
    });
    const extra = await create({ colour: 'blue' });
    expect(extra.status).toBe(422);
    expect(issuesOf(extra.body)[0]).toMatchObject({ type: 'extra_forbidden' });
    const missing = await call(app.url, 'POST', '/v1/sessions', { key: key.apiKey });
    expect(missing.status).toBe(422);
  });

  it('replays a create with the same Idempotency-Key instead of making a second session', async () => {
    const headers = { 'Idempotency-Key': `create-${Date.now()}` };
    const a = await call<Envelope<SessionView>>(app.url, 'POST', '/v1/sessions', {
      key: key.apiKey,
      body: {},
      headers,
    });
    const b = await call<Envelope<SessionView>>(app.url, 'POST', '/v1/sessions', {
      key: key.apiKey,
      body: {},
      headers,
    });
    expect(b.body.payload.session_id).toBe(a.body.payload.session_id);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('GET /v1/sessions/{session_id}', () => {
  it('returns the session with its step count and state', async () => {
    const id = await newSession();
    await step(id, 'recall');
    await step(id, 'summarize');
    const res = await get(id);
    expect(res.status).toBe(200);
    expect(res.body.payload).toMatchObject({
      session_id: id,
      continuity_mode: 'preserve',
      state: 'active',
      step_count: 2,
    });
    expect(res.body.payload.last_step_at).toEqual(expect.any(String));
  });

  it('answers 404 for an unknown session and for a malformed id (never issued)', async () => {
    const unknown = await get(newId('ses'));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code).toBe('not_found');
    const malformed = await get('not-a-session');
    expect(malformed.status).toBe(404);
  });
});

describe('POST /v1/sessions/{session_id}/step', () => {
  it('numbers steps from 1 and records each one durably', async () => {
    const id = await newSession();
    const one = await step(id, 'observe_world', {});
    const two = await step(id, 'recall');
    expect(one.status).toBe(200);
    expect(one.body.payload).toMatchObject({
      session_id: id,
      step: 1,
      command: 'observe_world',
      state: 'active',
      continuity: { steps: 1 },
    });
    expect(two.body.payload.step).toBe(2);
    const stored = await storedIn(app.deps.db).sessionSteps.findOne({ _id: `${id}:2` });
    expect(stored).toMatchObject({ session_id: id, step: 2, command: 'recall' });
  });

  it('list_objects lists world objects, by kind and up to a limit', async () => {
    const a = await worldObject('alpha');
    const b = await worldObject('beta');
    const c = await worldObject('gamma');
    const id = await newSession();
    const all = await step(id, 'list_objects', { kind: KIND });
    expect(all.status).toBe(200);
    expect(all.body.payload.output).toMatchObject({
      kind: KIND,
      count: 3,
      truncated: false,
      items: [
        { object_id: a._id, kind: KIND, name: 'alpha', version: 1 },
        { object_id: b._id, name: 'beta' },
        { object_id: c._id, name: 'gamma' },
      ],
    });
    const limited = await step(id, 'list_objects', { kind: KIND, limit: 2 });
    expect(limited.body.payload.output).toMatchObject({ count: 2, truncated: true });
    const any = await step(id, 'list_objects', {});
    expect(any.body.payload.output['count']).toBeGreaterThanOrEqual(3);
    expect(any.body.payload.output['kind']).toBeNull();
  });

  it('inspect_object returns the object; an unknown one is 404 and takes no step', async () => {
    const object = await worldObject('delta');
    const id = await newSession();
    const res = await step(id, 'inspect_object', { object_id: object._id });
    expect(res.status).toBe(200);
    expect(res.body.payload.output).toMatchObject({
      object: { object_id: object._id, name: 'delta', attributes: { name: 'delta' } },
    });
    const unknown = await step(id, 'inspect_object', { object_id: newId('obj') });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code).toBe('not_found');
    expect((await step(id, 'recall')).body.payload.step).toBe(2);
  });

  it('observe_world counts objects by kind and names the newest history event', async () => {
    await worldObject('eta', `${KIND}_observed`);
    await worldObject('theta', `${KIND}_observed`);
    const eventId = newId('evt');
    await app.deps.repos.worldHistory.appendOnce({
      _id: eventId,
      kind: 'object.updated',
      at: '2999-01-01T00:00:00.000Z',
      change: {},
    });
    const id = await newSession();
    const res = await step(id, 'observe_world');
    expect(res.status).toBe(200);
    const output = res.body.payload.output as {
      objects: number;
      by_kind: Record<string, number>;
      history_head: string;
      newest_event: Record<string, unknown>;
    };
    expect(output.by_kind[`${KIND}_observed`]).toBe(2);
    expect(output.objects).toBe(Object.values(output.by_kind).reduce((a, b) => a + b, 0));
    expect(output.history_head).toBe(eventId);
    expect(output.newest_event).toMatchObject({ event_id: eventId, kind: 'object.updated' });
  });

  it('note stores a note whose refs must exist', async () => {
    const object = await worldObject('iota');
    const id = await newSession();
    const res = await step(id, 'note', { text: 'iota looks healthy', refs: [object._id] });
    expect(res.status).toBe(200);
    expect(res.body.payload.output).toMatchObject({
      noted: { step: 1, text: 'iota looks healthy', refs: [object._id] },
      notes: 1,
    });
    const missing = newId('obj');
    const bad = await step(id, 'note', { text: 'about nothing', refs: [object._id, missing] });
    expect(bad.status).toBe(422);
    expect(issuesOf(bad.body)).toEqual([
      {
        loc: ['body', 'input_packet', 'args', 'refs', 1],
        msg: `Unknown world object ${missing}`,
        type: 'value_error',
      },
    ]);
    const empty = await step(id, 'note', { text: '' });
    expect(empty.status).toBe(422);
    expect(issuesOf(empty.body)[0]).toMatchObject({
      loc: ['body', 'input_packet', 'args', 'text'],
      type: 'string_too_short',
    });
    const noText = await step(id, 'note', {});
    expect(issuesOf(noText.body)[0]).toMatchObject({
      loc: ['body', 'input_packet', 'args', 'text'],
      type: 'missing',
    });
  });

  it('recall returns the notes in preserve mode, in order, with the memory digest', async () => {
    const id = await newSession('preserve');
    await step(id, 'note', { text: 'first' });
    await step(id, 'list_objects');
    await step(id, 'note', { text: 'second' });
    const res = await step(id, 'recall');
    expect(res.body.payload.output).toMatchObject({
      continuity_mode: 'preserve',
      carried_over: true,
      total: 2,
      notes: [
        { step: 1, text: 'first', refs: [] },
        { step: 3, text: 'second', refs: [] },
      ],
    });
    expect(res.body.payload.output['memory_digest']).toBe(
      res.body.payload.continuity.memory_digest,
    );
  });

  it('recall carries nothing over in fresh mode', async () => {
    const id = await newSession('fresh');
    await step(id, 'note', { text: 'forgotten' });
    const res = await step(id, 'recall');
    expect(res.status).toBe(200);
    expect(res.body.payload.output).toEqual({
      continuity_mode: 'fresh',
      carried_over: false,
      notes: [],
      total: 0,
    });
    expect(res.body.payload.continuity.memory_digest).toBeNull();
  });

  it('summarize summarises the steps before it', async () => {
    const object = await worldObject('kappa');
    const id = await newSession();
    await step(id, 'note', { text: 'a', refs: [object._id] });
    await step(id, 'note', { text: 'b' });
    await step(id, 'inspect_object', { object_id: object._id });
    await step(id, 'recall');
    const res = await step(id, 'summarize');
    expect(res.body.payload.step).toBe(5);
    expect(res.body.payload.output).toMatchObject({
      steps: 4,
      by_command: { note: 2, inspect_object: 1, recall: 1 },
      notes: 2,
      objects_referenced: [object._id],
    });
    expect(res.body.payload.output['summary']).toBe(
      '4 steps: 2 note, 1 inspect_object, 1 recall before this one; 2 notes; 1 world object referenced.',
    );
  });

  it('close closes the session; any later step is 409 invalid_state', async () => {
    const id = await newSession();
    await step(id, 'recall');
    const closed = await step(id, 'close');
    expect(closed.status).toBe(200);
    expect(closed.body.payload).toMatchObject({
      step: 2,
      state: 'closed',
      output: { closed: true, steps: 2 },
    });
    for (const command of ['recall', 'close']) {
      const after = await step(id, command);
      expect(after.status).toBe(409);
      expect(after.body.error).toMatchObject({ code: 'invalid_state', state: 'closed' });
    }
    expect((await get(id)).body.payload).toMatchObject({ state: 'closed', step_count: 2 });
  });

  it('answers an unknown command with 422 naming the known ones', async () => {
    const id = await newSession();
    const res = await step(id, 'dance');
    expect(res.status).toBe(422);
    const [issue] = issuesOf(res.body);
    expect(issue.loc).toEqual(['body', 'input_packet', 'command']);
    expect(issue.type).toBe('enum');
    for (const known of [
      'list_objects',
      'inspect_object',
      'observe_world',
      'note',
      'recall',
      'summarize',
      'close',
    ])
      expect(issue.msg).toContain(`'${known}'`);
  });

  it('answers bad arguments with 422 at their location', async () => {
    const id = await newSession();
    const limit = await step(id, 'list_objects', { limit: 0 });
    expect(limit.status).toBe(422);
    expect(issuesOf(limit.body)[0]).toMatchObject({
      loc: ['body', 'input_packet', 'args', 'limit'],
      type: 'greater_than_equal',
    });
    const extra = await step(id, 'recall', { everything: true });
    expect(issuesOf(extra.body)[0]).toMatchObject({
      loc: ['body', 'input_packet', 'args', 'everything'],
      type: 'extra_forbidden',
    });
    const objectId = await step(id, 'inspect_object', { object_id: 'nope' });
    expect(issuesOf(objectId.body)[0]).toMatchObject({
      loc: ['body', 'input_packet', 'args', 'object_id'],
      type: 'string_pattern_mismatch',
    });
    // A command with a required argument needs `args` (stated in the document, issue 40).
    const missing = await step(id, 'inspect_object');
    expect(issuesOf(missing.body)[0]).toMatchObject({
      loc: ['body', 'input_packet', 'args'],
      type: 'missing',
    });
    const missingField = await step(id, 'inspect_object', {});
    expect(issuesOf(missingField.body)[0]).toMatchObject({
      loc: ['body', 'input_packet', 'args', 'object_id'],
      type: 'missing',
    });
    expect((await get(id)).body.payload.step_count).toBe(0);
  });

  it('answers 404 for a step on an unknown session', async () => {
    const res = await step(newId('ses'), 'recall');
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe('not_found');
  });
});

describe('continuity', () => {
  it('preserve keeps one identity digest for the whole session', async () => {
    const id = await newSession('preserve');
    const digests = new Set<string>();
    for (const command of ['recall', 'note', 'summarize']) {
      const res = await step(id, command, command === 'note' ? { text: 'x' } : undefined);
      expect(res.body.payload.continuity).toMatchObject({ identity_stable: true });
      digests.add(res.body.payload.continuity.identity_digest);
    }
    expect(digests.size).toBe(1);
    const other = await newSession('preserve');
    const elsewhere = await step(other, 'recall');
    expect(digests.has(elsewhere.body.payload.continuity.identity_digest)).toBe(false);
  });

  it('fresh gives a new identity digest every step', async () => {
    const id = await newSession('fresh');
    const digests = new Set<string>();
    for (let i = 0; i < 3; i += 1) {
      const res = await step(id, 'recall');
      expect(res.body.payload.continuity).toMatchObject({ identity_stable: false, steps: i + 1 });
      digests.add(res.body.payload.continuity.identity_digest);
    }
    expect(digests.size).toBe(3);
  });
});

describe('concurrent steps', () => {
  it('never give two steps the same number', async () => {
    const id = await newSession();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => step(id, 'note', { text: `note ${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const numbers = results.map((r) => r.body.payload.step).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect((await get(id)).body.payload.step_count).toBe(20);
    const recall = await step(id, 'recall');
    expect(recall.body.payload.output['total']).toBe(20);
    expect((recall.body.payload.output['notes'] as unknown[]).length).toBe(20);
  });

  it('stay distinct across two api instances sharing the database', async () => {
    const other = await startTestApp('sessions_b', { dbName: app.dbName, adminKey: app.adminKey });
    try {
      const id = await newSession();
      await step(id, 'recall', undefined, other); // the other instance now caches step 1
      await step(id, 'recall'); // step 2 here: the other instance's cache is stale
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => step(id, 'recall', undefined, i % 2 ? app : other)),
      );
      const numbers = results.map((r) => r.body.payload.step).sort((a, b) => a - b);
      expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => i + 3));
      // A close on one instance stops steps on the other, whose cache has not seen it.
      await step(id, 'close', undefined, other);
      const after = await step(id, 'recall');
      expect(after.status).toBe(409);
    } finally {
      await other.stop();
    }
  });

  it('take nothing after a close that races them', async () => {
    const id = await newSession();
    const results = await Promise.all([
      ...Array.from({ length: 8 }, () => step(id, 'recall')),
      step(id, 'close'),
      step(id, 'close'),
      ...Array.from({ length: 8 }, () => step(id, 'recall')),
    ]);
    const ok = results.filter((r) => r.status === 200).map((r) => r.body.payload);
    expect(results.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const closes = ok.filter((s) => s.command === 'close');
    expect(closes).toHaveLength(1);
    const last = Math.max(...ok.map((s) => s.step));
    expect(closes[0].step).toBe(last);
    expect(ok.map((s) => s.step).sort((a, b) => a - b)).toEqual(
      Array.from({ length: last }, (_, i) => i + 1),
    );
  });
});

describe('the step store', () => {
  it('gives a step number to one claim only, also when claims share one insert command', async () => {
    const repo = app.deps.repos.sessionSteps;
    const sessionId = newId('ses');
    const at = new Date().toISOString();
    const record = (step: number, tag: string) => ({
      _id: `${sessionId}:${step}`,
      session_id: sessionId,
      step,
      command: 'recall',
      args: { tag },
      output: {},
      at,
      identity_digest: 'test',
      actor: { principal_id: 'prn_test', key_id: 'key_test' },
      state: {
        steps: step,
        closed: false,
        by_command: { recall: step },
        notes: 0,
        note_steps: [],
        objects: [],
        memory_digest: 'test',
        first_at: at,
      },
    });
    // The first goes alone; the three that arrive while it is written share one command.
    const results = await Promise.all([
      repo.insert(record(1, 'a')),
      repo.insert(record(2, 'b')),
      repo.insert(record(2, 'c')),
      repo.insert(record(2, 'd')),
    ]);
    expect(results).toEqual([true, true, false, false]);
    // Stored packed (`stored-steps.ts`), read back whole.
    const stored = await storedIn(app.deps.db).sessionSteps.findOne({ _id: `${sessionId}:2` });
    expect(stored).toMatchObject({ session_id: sessionId, step: 2, packed: expect.any(String) });
    expect((await repo.find(sessionId, 2))?.args).toEqual({ tag: 'b' });
    expect((await repo.newest(sessionId))?.step).toBe(2);
  });
});
