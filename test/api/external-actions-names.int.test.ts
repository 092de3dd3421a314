import { newId } from '../../src/lib/ids';
import { seedObject } from '../helpers/actions';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

// GET /v1/external-actions/names: the names behind the ids the console shows (docs/console.md).
interface Names {
  principals: { principal_id: string; name: string }[];
  objects: { object_id: string; name: string; kind: string }[];
}

let app: TestApp;
let reader: TestKey;
let ada: TestKey;
beforeAll(async () => {
  app = await startTestApp('action-names');
  reader = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  ada = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2, name: 'Ada Ops' });
});
afterAll(() => app.close());

const names = (query: string, key = reader.apiKey) =>
  call<{ payload: Names; error?: { message: string } }>(
    app.url,
    'GET',
    `/v1/external-actions/names?${query}`,
    { key },
  );

describe('GET /v1/external-actions/names', () => {
  it('answers the names of many principals and objects in one request, once each, unknown ids left out', async () => {
    const ledger = await seedObject(app, { kind: 'service', name: 'payments ledger' });
    const unknownPrincipal = newId('prn');
    const res = await names(
      `principal_ids=${ada.principalId},${unknownPrincipal},${ada.principalId},${reader.principalId}` +
        `&object_ids=${ledger._id},${newId('obj')}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.payload).toEqual({
      principals: [
        { principal_id: ada.principalId, name: 'Ada Ops' },
        { principal_id: reader.principalId, name: 'test strategic 2' },
      ],
      objects: [{ object_id: ledger._id, name: 'payments ledger', kind: 'service' }],
    });
  });

  it('never answers more than a name: no e-mail, organization or role', async () => {
    const res = await names(`principal_ids=${ada.principalId}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.payload.principals[0]).sort()).toEqual(['name', 'principal_id']);
    expect(res.body.payload.objects).toEqual([]);
  });

  it('answers 422 naming the parameter for an id of the wrong kind or too many ids', async () => {
    const wrongKind = await names(`principal_ids=${newId('obj')}`);
    expect(wrongKind.status).toBe(422);
    expect(wrongKind.text).toContain('principal_ids');
    const tooMany = Array.from({ length: 101 }, () => newId('obj')).join(',');
    const over = await names(`object_ids=${tooMany}`);
    expect(over.status).toBe(422);
    expect(over.text).toContain('object_ids');
  });

  it('is for keys that may read actions (strategic, layer 2)', async () => {
    const sandbox = await createTestKey(app, { entitlement: 'sandbox', accessLayer: 0 });
    const res = await names(`principal_ids=${ada.principalId}`, sandbox.apiKey);
    expect(res.status).toBe(403);
  });
});
