import { storedIn } from '../helpers/collections';
import { newId } from '../../src/lib/ids';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

type Envelope<T> = { ok: boolean; payload: T; error?: { code: string }; detail?: unknown };
interface Summary {
  session_id?: string;
  state: string;
  summary: string;
  facts: Record<string, unknown>;
}
interface LinkView {
  kind: string;
  id: string;
  seq: number;
  continuity_mode: string;
  identity_digest: string;
  at: string;
}
interface Continuity {
  session_id?: string;
  runtime_id: string;
  identity_digest: string;
  lineage_intact: boolean;
  problems: string[];
  verified_links: number;
  lineage: LinkView[];
  sessions: number;
  preserved: number;
  fresh: number;
  checkpoints: number;
  session?: Record<string, unknown>;
  window: { from: string; to: string };
  inputs_digest: string;
  computed_at: string;
}
interface Platform {
  service: string;
  version: string;
  routes: number;
  families: {
    family: string;
    exposure: string;
    min_entitlement: string;
    min_layer: string;
    routes: number;
    planned: boolean;
  }[];
  counts: Record<string, number>;
}

let app: TestApp;
let key: TestKey;

beforeAll(async () => {
  app = await startTestApp('runtime');
  key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 0 });
});
afterAll(() => app.close());

const get = <T>(path: string) => call<Envelope<T>>(app.url, 'GET', path, { key: key.apiKey });
const post = <T>(path: string, body: unknown) =>
  call<Envelope<T>>(app.url, 'POST', path, { key: key.apiKey, body });

async function newSession(mode: 'preserve' | 'fresh' = 'preserve'): Promise<string> {
  const res = await post<{ session_id: string }>('/v1/sessions', { continuity_mode: mode });
  expect(res.status).toBe(201);
  return res.body.payload.session_id;
}
const step = (id: string, command: string, args?: Record<string, unknown>) =>
  post<{ step: number; continuity: { identity_digest: string } }>(`/v1/sessions/${id}/step`, {
    input_packet: args ? { command, args } : { command },
  });

/** Documents in the collections a read might write to, by mistake. */
async function recordCounts(): Promise<number[]> {
  return Promise.all([
    app.deps.db.collection('sessions').countDocuments(),
    storedIn(app.deps.db).sessionLineage.countDocuments(),
    storedIn(app.deps.db).sessionSteps.countDocuments(),
    storedIn(app.deps.db).worldObjects.countDocuments(),
    storedIn(app.deps.db).worldHistory.countDocuments(),
  ]);
}

describe('GET /v1/runtime/summary', () => {
  it('summarises the runtime and its sessions without a session_id, creating nothing', async () => {
    const preserved = await newSession('preserve');
    await newSession('fresh');
    const before = await recordCounts();
    const res = await get<Summary>('/v1/runtime/summary');
    expect(res.status).toBe(200);
    expect(res.body.payload).not.toHaveProperty('session_id');
    expect(res.body.payload.state).toBe('active');
    const runtime = await app.deps.repos.runtime.get();
    expect(res.body.payload.summary).toContain(`Runtime ${runtime!.runtime_id} is active`);
    expect(res.body.payload.facts).toMatchObject({
      runtime_id: runtime!.runtime_id,
      identity_digest: runtime!.identity_digest,
    });
    const facts = res.body.payload.facts as { sessions: number; preserved: number; fresh: number };
    expect(facts.sessions).toBe(facts.preserved + facts.fresh);
    expect(facts.sessions).toBeGreaterThanOrEqual(2);
    expect(res.body.payload.summary).toContain(`${facts.sessions} sessions in its lineage`);
    expect(res.body.payload.facts['latest_session_id']).toEqual(expect.any(String));
    expect(preserved).toMatch(/^ses_/);
    expect(await recordCounts()).toEqual(before);
  });

  it('focuses on a session with session_id, creating nothing', async () => {
    const id = await newSession();
    await step(id, 'note', { text: 'remember the milk' });
    await step(id, 'recall');
    const before = await recordCounts();
    const res = await get<Summary>(`/v1/runtime/summary?session_id=${id}`);
    expect(res.status).toBe(200);
    expect(res.body.payload).toMatchObject({
      session_id: id,
      state: 'active',
      facts: { steps: 2, notes: 1, by_command: { note: 1, recall: 1 }, identity_stable: true },
    });
    expect(res.body.payload.summary).toContain(`Session ${id} (preserve`);
    expect(res.body.payload.summary).toContain('after 2 steps: 1 note, 1 recall');
    expect(await recordCounts()).toEqual(before);
  });

  it('says closed for a closed session and no steps for a new one', async () => {
    const closed = await newSession();
    await step(closed, 'close');
    const a = await get<Summary>(`/v1/runtime/summary?session_id=${closed}`);
    expect(a.body.payload.state).toBe('closed');
    const fresh = await newSession('fresh');
    const b = await get<Summary>(`/v1/runtime/summary?session_id=${fresh}`);
    expect(b.body.payload).toMatchObject({ state: 'active', facts: { steps: 0 } });
    expect(b.body.payload.summary).toContain('has taken no steps yet');
  });

  it('answers 404 for an unknown session_id and 422 for a malformed one', async () => {
    const unknown = await get(`/v1/runtime/summary?session_id=${newId('ses')}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code).toBe('not_found');
    const malformed = await get('/v1/runtime/summary?session_id=nope');
    expect(malformed.status).toBe(422);
    expect((malformed.body.detail as { loc: string[] }[])[0].loc).toEqual(['query', 'session_id']);
  });
});

describe('GET /v1/runtime/continuity', () => {
  it('reports the identity lineage across sessions, newest first, intact', async () => {
    const first = await get<Continuity>('/v1/runtime/continuity');
    expect(first.status).toBe(200);
    const a = await newSession('preserve');
    const b = await newSession('fresh');
    const before = await recordCounts();
    const res = await get<Continuity>('/v1/runtime/continuity');
    expect(await recordCounts()).toEqual(before);
    const report = res.body.payload;
    const runtime = await app.deps.repos.runtime.get();
    expect(report).toMatchObject({
      runtime_id: runtime!.runtime_id,
      identity_digest: runtime!.identity_digest,
      lineage_intact: true,
      problems: [],
      sessions: first.body.payload.sessions + 2,
      preserved: first.body.payload.preserved + 1,
      fresh: first.body.payload.fresh + 1,
      checkpoints: 0,
    });
    expect(report.lineage.slice(0, 2)).toMatchObject([
      { kind: 'session', id: b, seq: report.sessions, continuity_mode: 'fresh' },
      { kind: 'session', id: a, seq: report.sessions - 1, continuity_mode: 'preserve' },
    ]);
    expect(report.verified_links).toBe(Math.min(report.sessions, 20));
    expect(report.inputs_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(report.window.from <= report.window.to).toBe(true);
    // Reproducible: the same records give the same readout.
    const again = await get<Continuity>('/v1/runtime/continuity');
    expect(again.body.payload.inputs_digest).toBe(report.inputs_digest);
  });

  it('focuses on a session: one identity in preserve mode, a new one per step in fresh', async () => {
    const kept = await newSession('preserve');
    const firstKept = await step(kept, 'recall');
    await step(kept, 'recall');
    const keptReport = await get<Continuity>(`/v1/runtime/continuity?session_id=${kept}`);
    expect(keptReport.status).toBe(200);
    expect(keptReport.body.payload).toMatchObject({
      session_id: kept,
      lineage_intact: true,
      lineage: [{ id: kept }],
      session: {
        session_id: kept,
        identity_stable: true,
        steps: 2,
        state: 'active',
        identity_digest: firstKept.body.payload.continuity.identity_digest,
        current_identity_digest: firstKept.body.payload.continuity.identity_digest,
      },
    });
    const fresh = await newSession('fresh');
    await step(fresh, 'recall');
    const last = await step(fresh, 'recall');
    const freshReport = await get<Continuity>(`/v1/runtime/continuity?session_id=${fresh}`);
    const session = freshReport.body.payload.session!;
    expect(session).toMatchObject({ identity_stable: false, steps: 2 });
    expect(session['current_identity_digest']).toBe(last.body.payload.continuity.identity_digest);
    expect(session['current_identity_digest']).not.toBe(session['identity_digest']);
    expect(freshReport.body.payload.lineage_intact).toBe(true);
  });

  it('links sessions created at once, on two instances, each into its own place', async () => {
    const other = await startTestApp('runtime_b', { dbName: app.dbName, adminKey: app.adminKey });
    try {
      const before = (await get<Continuity>('/v1/runtime/continuity')).body.payload.sessions;
      const created = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          call<Envelope<{ session_id: string }>>(
            i % 2 ? app.url : other.url,
            'POST',
            '/v1/sessions',
            { key: key.apiKey, body: { continuity_mode: i % 4 ? 'preserve' : 'fresh' } },
          ),
        ),
      );
      expect(created.map((r) => r.status)).toEqual(Array(16).fill(201));
      const report = (await get<Continuity>('/v1/runtime/continuity')).body.payload;
      expect(report).toMatchObject({ lineage_intact: true, sessions: before + 16 });
      const ids = new Set(created.map((r) => r.body.payload.session_id));
      const newest = report.lineage.slice(0, 16);
      expect(new Set(newest.map((l) => l.id))).toEqual(ids);
      expect(newest.map((l) => l.seq)).toEqual(
        Array.from({ length: 16 }, (_, i) => before + 16 - i),
      );
    } finally {
      await other.stop();
    }
  });

  it('answers 404 for an unknown session_id', async () => {
    const res = await get(`/v1/runtime/continuity?session_id=${newId('ses')}`);
    expect(res.status).toBe(404);
  });

  it('notices a tampered lineage link', async () => {
    const id = await newSession();
    const link = await storedIn(app.deps.db).sessionLineage.findOne({ session_id: id });
    await storedIn(app.deps.db).sessionLineage.updateOne(
      { _id: link!._id },
      { $set: { continuity_mode: 'fresh' } },
    );
    try {
      const res = await get<Continuity>('/v1/runtime/continuity');
      expect(res.body.payload.lineage_intact).toBe(false);
      expect(res.body.payload.problems).toContain(`link ${link!._id}: digest does not recompute`);
    } finally {
      await storedIn(app.deps.db).sessionLineage.replaceOne({ _id: link!._id }, link!);
    }
    const healed = await get<Continuity>('/v1/runtime/continuity');
    expect(healed.body.payload.lineage_intact).toBe(true);
  });
});

describe('GET /v1/platform/summary', () => {
  it('describes the version, the public families with route counts and record counts', async () => {
    await newSession();
    const before = await recordCounts();
    const res = await get<Platform>('/v1/platform/summary');
    expect(res.status).toBe(200);
    expect(await recordCounts()).toEqual(before);
    const summary = res.body.payload;
    expect(summary).toMatchObject({ service: 'governed-runtime', version: '1.1.0' });
    const byName = new Map(summary.families.map((f) => [f.family, f]));
    expect(byName.get('sessions')).toEqual({
      family: 'sessions',
      exposure: 'layer0_public',
      min_entitlement: 'sandbox',
      min_layer: 'layer0_public',
      routes: 3,
      planned: false,
    });
    expect(byName.get('runtime_basic')?.routes).toBe(4);
    expect(byName.get('witness_future')).toMatchObject({ routes: 0, planned: true });
    expect(byName.has('admin_control_plane')).toBe(false);
    expect(byName.has('admin_ops')).toBe(false);
    expect(summary.routes).toBe(summary.families.reduce((sum, f) => sum + f.routes, 0));
    const continuity = await get<Continuity>('/v1/runtime/continuity');
    expect(summary.counts['sessions']).toBe(continuity.body.payload.sessions);
    expect(summary.counts['session_steps']).toBe(before[2]);
    expect(summary.counts['world_objects']).toBe(before[3]);
  });
});

describe('GET /v1/runtime/status', () => {
  it('still answers with the runtime identity', async () => {
    const res = await get<{ state: string; identity_digest: string }>('/v1/runtime/status');
    expect(res.status).toBe(200);
    expect(res.body.payload.state).toBe('active');
    expect(res.body.payload.identity_digest).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('the runtime witnesses', () => {
  it('answer with their witness header (test/api/runtime-witnesses.int.test.ts checks each)', async () => {
    const witness = await createTestKey(app, { entitlement: 'institutional', accessLayer: 1 });
    for (const path of ['affect', 'development', 'self-report', 'integrated-self-world']) {
      const res = await call<Envelope<{ witness: string; inputs: { digest: string } }>>(
        app.url,
        'GET',
        `/v1/runtime/${path}`,
        { key: witness.apiKey },
      );
      expect(res.status).toBe(200);
      expect(res.body.payload.witness).toBe(path.replaceAll('-', '_'));
      expect(res.body.payload.inputs.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });
});
