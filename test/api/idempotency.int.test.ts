import { call } from '../helpers/http';
import { startTestApp, type TestApp } from '../helpers/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp('idempotency');
});
afterAll(() => app.close());

const create = (idempotencyKey: string, email: string) =>
  call<{ payload: { principal_id: string } }>(app.url, 'POST', '/v1/admin/principals/create', {
    key: app.adminKey,
    body: { name: 'Idem', email, role: 'member' },
    headers: { 'Idempotency-Key': idempotencyKey },
  });

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body, creating once', async () => {
    const first = await create('idem-1', 'idem1@example.test');
    const second = await create('idem-1', 'idem1@example.test');
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(
      await app.deps.db.collection<{ _id: string }>('principals').countDocuments({
        email_key: 'idem1@example.test',
      }),
    ).toBe(1);
  });

  it('answers 409 when the same key comes with a different body', async () => {
    await create('idem-2', 'idem2@example.test');
    const other = await create('idem-2', 'someone-else@example.test');
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(await app.deps.repos.principals.findByEmail('someone-else@example.test')).toBeNull();
  });

  it('creates exactly once under 50 concurrent repeats', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, () => create('idem-3', 'idem3@example.test')),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of results) expect([201, 409]).toContain(r.status);
    expect(new Set(created.map((r) => r.body.payload.principal_id)).size).toBe(1);
    expect(
      await app.deps.db.collection<{ _id: string }>('principals').countDocuments({
        email_key: 'idem3@example.test',
      }),
    ).toBe(1);
  });

  it('does not store failed answers: the same key may be retried after a fix-free failure', async () => {
    await create('seed', 'taken@example.test');
    const conflict = await create('idem-4', 'taken@example.test');
    expect(conflict.status).toBe(409);
    expect(await app.deps.repos.idempotency.countPending()).toBe(0);
  });

  it('rejects a malformed key with 422', async () => {
    const res = await create('x'.repeat(300), 'idem5@example.test');
    expect(res.status).toBe(422);
  });
});

// Issue 10, risk 5: a claim is never taken over, so a key can never create twice. World
// tasks have no natural uniqueness (unlike principals' e-mails): any second creation shows.
describe('Idempotency-Key claims are never taken over', () => {
  let stale: TestApp;
  beforeAll(async () => {
    stale = await startTestApp('idempotency_stale', { env: { IDEMPOTENCY_STALE_MS: '300' } });
  });
  afterAll(() => stale.close());

  const createTask = (idempotencyKey: string, title: string) =>
    call<{ payload: { task_id: string } }>(stale.url, 'POST', '/v1/worlds/tasks', {
      key: stale.adminKey,
      body: { title },
      headers: { 'Idempotency-Key': idempotencyKey },
    });
  const tasksTitled = (title: string) =>
    stale.deps.db.collection('world_tasks').countDocuments({ title });

  it('does not create again when the first answer could not be stored', async () => {
    const repo = stale.deps.repos.idempotency;
    const complete = repo.complete.bind(repo);
    repo.complete = () => Promise.reject(new Error('the store refused the answer'));
    let first;
    try {
      first = await createTask('lost-answer', 'lost answer');
    } finally {
      repo.complete = complete;
    }
    expect(first.status).toBe(201);
    const soon = await createTask('lost-answer', 'lost answer');
    expect(soon.status).toBe(409);
    // Past the window in which the first request could still be running: still no rerun.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const later = await createTask('lost-answer', 'lost answer');
    expect(later.status).toBe(409);
    expect(later.body).toMatchObject({ error: { code: 'conflict' } });
    expect(await tasksTitled('lost answer')).toBe(1);
  });

  it('does not create again when a retry comes while a slow first request still runs', async () => {
    const tasks = stale.deps.repos.worldTasks;
    const claimVersion = tasks.claimVersion.bind(tasks);
    tasks.claimVersion = async (...args: Parameters<typeof claimVersion>) => {
      await new Promise((resolve) => setTimeout(resolve, 800));
      return claimVersion(...args);
    };
    try {
      const slow = createTask('slow-first', 'slow first');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const retry = await createTask('slow-first', 'slow first');
      expect(retry.status).toBe(409);
      expect((await slow).status).toBe(201);
    } finally {
      tasks.claimVersion = claimVersion;
    }
    expect((await createTask('slow-first', 'slow first')).status).toBe(201);
    expect(await tasksTitled('slow first')).toBe(1);
  });
});
