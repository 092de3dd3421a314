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

  it('creates exactly once under concurrent repeats', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () => create('idem-3', 'idem3@example.test')),
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
    expect(await app.deps.repos.idempotency.collection.countDocuments({ state: 'pending' })).toBe(
      0,
    );
  });

  it('rejects a malformed key with 422', async () => {
    const res = await create('x'.repeat(300), 'idem5@example.test');
    expect(res.status).toBe(422);
  });
});
