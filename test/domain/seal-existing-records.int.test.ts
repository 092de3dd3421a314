import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manifestProblem } from '../../src/domain/external-actions/ledger-seal';
import { sealExistingRecords } from '../../src/domain/seal-existing-records';
import { createAuditSeal } from '../../src/domain/governance/audit-seal';
import { ledgerSealSeed } from '../../src/domain/external-actions/ledger-seal';
import { proposeUpdate } from '../helpers/actions';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import {
  startTestApp,
  TEST_LEDGER_CHECKPOINT_DIR,
  TEST_LEDGER_SEAL_KEY,
  TEST_PEPPER,
  type TestApp,
} from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Records and ledger entries written before sealing existed: nothing unsealed is trusted,
// so the operator's seal-records command seals once what holds, refuses what does not, and
// writes a signed manifest outside the database (docs/proofs.md).
let app: TestApp;
let worker: TestWorker;
let legacy: TestKey;
let tampered: TestKey;
let actionId: string;

type Doc = { _id: string } & Record<string, unknown>;
/** The audit seal the api writes with (the test configuration's). */
const auditSealOf = () =>
  createAuditSeal({
    seed: ledgerSealSeed({ ledgerSealKey: TEST_LEDGER_SEAL_KEY, keyPepper: TEST_PEPPER }),
    checkpointDir: TEST_LEDGER_CHECKPOINT_DIR,
    database: app.dbName,
  });
const col = (name: string) => app.deps.db.collection<Doc>(name);
const whoAmI = (key: TestKey) => call(app.url, 'GET', '/v1/principals/me', { key: key.apiKey });
const proof = async (name: string) =>
  (
    await call<{
      payload: { results: { status: string; violations: { record_id: string }[] }[] };
    }>(app.url, 'POST', '/v1/proofs/checks', { key: app.adminKey, body: { checks: [name] } })
  ).body.payload.results[0];

beforeAll(async () => {
  app = await startTestApp('seal_existing');
  worker = await startTestWorker(app.deps);
  legacy = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  tampered = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  actionId = await proposeUpdate(app, legacy, { patch: { status: 'published' } });
  const rejected = await call(app.url, 'POST', `/v1/external-actions/${actionId}/reject`, {
    key: tampered.apiKey,
    body: { reason: 'no' },
  });
  expect(rejected.status).toBe(200);
  // As a database written before sealing existed: no seals on this key, its principal, this
  // action's ledger entries and end record.
  await col('api_keys').updateOne({ _id: legacy.keyId }, { $unset: { seal: '' } });
  await col('principals').updateOne({ _id: legacy.principalId }, { $unset: { seal: '' } });
  await col('action_ledger').updateMany(
    { _id: { $regex: `^${actionId}:` } },
    { $unset: { seal: '' } },
  );
  await col('action_ends').updateOne({ _id: actionId }, { $unset: { seal: '' } });
  // Audit rows written before chaining existed: no chain, digest or seal, and no checkpoint.
  await col('audit').insertOne({
    _id: 'aud_00000000000000000000000001',
    at: '2026-01-05T00:00:00.000Z',
    actor: { key_id: null, principal_id: 'prn_old' },
    action: 'principal.create',
    target: { type: 'principal', id: 'prn_old' },
    before: null,
    after: { name: 'old' },
    request_id: 'req_old',
  });
  // And one sealed record edited in the database.
  await col('principals').updateOne({ _id: tampered.principalId }, { $set: { role: 'operator' } });
  app.deps.authenticator.invalidateAll();
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

describe('seal-records', () => {
  it('seals what held, refuses what was edited, and signs a manifest outside the database', async () => {
    expect((await whoAmI(legacy)).status).toBe(401);
    expect((await proof('action_ledger_chain')).status).toBe('failed');
    expect((await proof('audit_chain')).violations.map((v) => v.record_id)).toEqual([
      'aud_00000000000000000000000001',
    ]);

    const manifestDir = mkdtempSync(join(tmpdir(), 'seal-manifest-'));
    const report = await sealExistingRecords({
      db: app.deps.db,
      database: app.dbName,
      sealed: app.deps.repos.sealed,
      ledgerSeal: app.deps.ledgerSeal,
      auditSeal: auditSealOf(),
      manifestDir,
    });
    expect(report.sealed['api_keys']).toEqual([legacy.keyId]);
    expect(report.sealed['principals']).toEqual([legacy.principalId]);
    expect(report.sealed['action_ends']).toEqual([actionId]);
    expect(report.sealed['action_ledger']?.every((id) => id.startsWith(`${actionId}:`))).toBe(true);
    expect(report.refused).toEqual([
      {
        collection: 'principals',
        record_id: tampered.principalId,
        problem: 'its seal does not match its fields',
      },
    ]);

    app.deps.authenticator.invalidateAll();
    expect((await whoAmI(legacy)).status).toBe(200);
    expect((await whoAmI(tampered)).status).toBe(401);
    expect((await proof('action_ledger_chain')).status).toBe('passed');
    expect(report.sealed['audit']).toEqual(['aud_00000000000000000000000001']);
    expect((await proof('audit_chain')).status).toBe('passed');
    const authority = await proof('authority_records');
    expect(authority.violations.map((v) => v.record_id)).toEqual([tampered.principalId]);

    const lines = readFileSync(join(manifestDir, `${app.dbName}.seal-manifest.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(manifestProblem(app.deps.ledgerSeal.acceptedKeys, lines[0])).toBeNull();
    expect(manifestProblem(app.deps.ledgerSeal.acceptedKeys, { ...lines[0], db: 'x' })).toMatch(
      /does not verify/,
    );

    // Idempotent: nothing new to seal.
    const again = await sealExistingRecords({
      db: app.deps.db,
      database: app.dbName,
      sealed: app.deps.repos.sealed,
      ledgerSeal: app.deps.ledgerSeal,
      auditSeal: auditSealOf(),
      manifestDir,
    });
    expect(Object.values(again.sealed).flat()).toEqual([]);
  });
});
