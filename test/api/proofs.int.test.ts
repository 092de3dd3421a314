import { canonicalDigest } from '../../src/lib/canonical-digest';
import { LEDGER_GENESIS } from '../../src/domain/repairs/ledger';
import { newId } from '../../src/lib/ids';
import { PROOF_CHECKS } from '../../src/domain/proofs/schemas';
import type { RepairLedgerEntry } from '../../src/store/repairs.repo';
import { proposeUpdate } from '../helpers/actions';
import { storedIn } from '../helpers/collections';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Proofs (docs/proofs.md): every check passes on a healthy store, and each one
// fails, naming the right record, when that record is tampered with in the database.
interface CheckResult {
  name: string;
  status: string;
  checked: number;
  violations: { collection: string; record_id: string; problem: string }[];
}
interface ProofRun {
  run_id: string;
  status: string;
  progress: { done: number; total: number };
  results: CheckResult[];
}

let app: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let approver: TestKey;
let institutional: TestKey;
let actionId: string;
let objectId: string;
let artifactPath: string;
beforeAll(async () => {
  app = await startTestApp('proofs');
  worker = await startTestWorker(app.deps);
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [proposer, approver, institutional] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
    createTestKey(app, { entitlement: 'institutional', accessLayer: 1 }),
  ]);
  // A healthy store: an action approved by another principal and executed (its ledger, its
  // object's history), and an artifact.
  actionId = await proposeUpdate(app, proposer, {
    patch: { status: 'published' },
    attributes: { status: 'draft' },
  });
  const action = await storedIn(app.deps.db).actions.findOne({ _id: actionId });
  objectId = action!.target.world_object_ref!;
  await app.deps.repos.worldHistory.appendOnce({
    _id: newId('evt'),
    kind: 'object.created',
    object_id: objectId,
    at: '2000-01-01T00:00:00.000Z',
    change: { after: { attributes: { status: 'draft' } }, version: 1 },
  });
  const decide = (path: string) =>
    call(app.url, 'POST', `/v1/external-actions/${actionId}/${path}`, {
      key: approver.apiKey,
      body: {},
    });
  expect((await decide('approve')).status).toBe(200);
  expect((await decide('execute')).status).toBe(200);
  const assay = await call<{ payload: { artifact: { path: string } } }>(
    app.url,
    'POST',
    '/v1/assays/social/run',
    { key: institutional.apiKey, body: { strategies: ['grudger', 'alternator'], turns: 10 } },
  );
  artifactPath = assay.body.payload.artifact.path;
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const run = async (body: Record<string, unknown> = {}, key = proposer) => {
  const res = await call<{ payload: ProofRun }>(app.url, 'POST', '/v1/proofs/checks', {
    key: key.apiKey,
    body,
  });
  expect(res.status).toBe(200);
  return res.body.payload;
};
const resultOf = async (check: string) => (await run({ checks: [check] })).results[0];

describe('proofs on a healthy store', () => {
  it('pass every check, and the status is certified', async () => {
    const proof = await run();
    expect(proof).toMatchObject({
      status: 'completed',
      progress: { done: PROOF_CHECKS.length, total: PROOF_CHECKS.length },
    });
    expect(proof.run_id).toMatch(/^prf_/);
    for (const result of proof.results) {
      expect({ name: result.name, status: result.status, violations: result.violations }).toEqual({
        name: result.name,
        status: 'passed',
        violations: [],
      });
    }
    const checked = Object.fromEntries(proof.results.map((r) => [r.name, r.checked]));
    expect(checked['action_ledger_chain']).toBeGreaterThanOrEqual(3);
    expect(checked['executions_approved']).toBe(1);
    // The demo world's objects too, each replayed from its history.
    expect(checked['world_history_replay']).toBeGreaterThanOrEqual(1);
    expect(checked['artifacts_integrity']).toBe(1);

    const status = await call<{ payload: { certification: string; age_seconds: number } }>(
      app.url,
      'GET',
      '/v1/proofs/status',
      { key: proposer.apiKey },
    );
    expect(status.status).toBe(200);
    expect(status.body.payload).toMatchObject({ certification: 'certified' });
    expect(status.body.payload.age_seconds).toBeLessThan(60);
  });

  it('bounds each read: max_records 1 leaves a check inconclusive', async () => {
    const proof = await run({ checks: ['action_ledger_chain'], max_records: 1 });
    expect(proof.results[0]).toMatchObject({ status: 'inconclusive', checked: 1 });
  });

  it('are strategic: an institutional key is refused', async () => {
    const refused = await call(app.url, 'POST', '/v1/proofs/checks', {
      key: institutional.apiKey,
      body: {},
    });
    expect(refused.status).toBe(403);
  });
});

describe('proofs after tampering', () => {
  const db = () => app.deps.db;

  it('action_ledger_chain names the ledger entry whose content changed', async () => {
    const entry = await storedIn(db()).actionLedger.findOne({
      action_id: actionId,
      event: 'approved',
    });
    await storedIn(db()).actionLedger.updateOne(
      { _id: entry!._id },
      { $set: { 'detail.reason': 'rewritten later' } },
    );
    const result = await resultOf('action_ledger_chain');
    expect(result.status).toBe('failed');
    expect(result.violations).toEqual([
      {
        collection: 'action_ledger',
        record_id: entry!._id,
        problem: 'its digest does not recompute',
      },
    ]);
  });

  it('executions_approved names the executed action whose approvals are gone', async () => {
    await storedIn(db()).actions.updateOne({ _id: actionId }, { $set: { approvals: [] } });
    const result = await resultOf('executions_approved');
    expect(result.status).toBe('failed');
    expect(result.violations.map((v) => v.record_id)).toEqual([actionId]);
    expect(result.violations[0].problem).toMatch(/0 distinct approvals of 1 required/);
  });

  it('world_history_replay names the object whose history was rewritten', async () => {
    const update = await storedIn(db()).worldHistory.findOne({
      object_id: objectId,
      kind: 'object.updated',
    });
    await storedIn(db()).worldHistory.updateOne(
      { _id: update!._id },
      { $set: { 'change.changes.status.to': 'archived' } },
    );
    const result = await resultOf('world_history_replay');
    expect(result.status).toBe('failed');
    expect(result.violations).toEqual([
      {
        collection: 'world_objects',
        record_id: objectId,
        problem: 'attributes differ from the replay of version 2',
      },
    ]);
  });

  it('artifacts_integrity names the artifact whose bytes changed', async () => {
    const artifact = await app.deps.repos.artifacts.findByPath(artifactPath);
    await db()
      .collection<{ _id: string; content: Buffer }>('artifact_blobs')
      .updateOne({ _id: artifact!.sha256 }, { $set: { content: Buffer.from('{"forged":true}') } });
    const result = await resultOf('artifacts_integrity');
    expect(result.status).toBe('failed');
    expect(result.violations.map((v) => v.record_id)).toEqual([
      `${artifact!._id} (${artifactPath})`,
    ]);
  });

  it('no_secrets names the audit row that holds a key secret', async () => {
    const row = await storedIn(db()).audit.findOne({});
    await storedIn(db()).audit.updateOne(
      { _id: row!._id },
      { $set: { note: `pasted grk_0123abcd_${'S'.repeat(40)} by mistake` } as never },
    );
    const result = await resultOf('no_secrets');
    expect(result.status).toBe('failed');
    expect(result.violations).toEqual([
      { collection: 'audit', record_id: row!._id, problem: 'holds an API key secret' },
    ]);
  });

  it('event_dedup names the second copy of one source event', async () => {
    const event = {
      source_family: 'crm',
      source_event_id: 'e-1',
      event_type: 'changed',
      occurred_at: '2026-11-24T10:00:00.000Z',
      received_at: '2026-11-24T10:00:00.000Z',
      world_object_ref: null,
      shared_context_id: null,
      payload: {},
      payload_sha256: '0'.repeat(64),
    };
    const first = { ...event, _id: 'crm-key-1', event_id: newId('evt') };
    const copy = { ...event, _id: 'crm-key-2', event_id: newId('evt') };
    await storedIn(db()).externalEvents.insertMany([first, copy]);
    const result = await resultOf('event_dedup');
    expect(result.status).toBe('failed');
    expect(result.violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          record_id: copy.event_id,
          problem: `same source event as ${first.event_id}`,
        }),
      ]),
    );
  });

  it('repair_chain names the slot whose link is broken', async () => {
    const body = (slot: number, prev: string): Omit<RepairLedgerEntry, 'digest'> => ({
      _id: slot,
      repair_id: newId('rep'),
      object_id: objectId,
      strategy: 'revalidate',
      outcome: 'no_action_needed',
      plan_digest: null,
      child_action_id: null,
      version: null,
      at: '2026-11-24T10:00:00.000Z',
      prev_digest: prev,
    });
    const [one, two] = [body(1, LEDGER_GENESIS), body(2, `sha256:${'f'.repeat(64)}`)];
    await db()
      .collection<RepairLedgerEntry>('repair_ledger')
      .insertMany([one, two].map((entry) => ({ ...entry, digest: canonicalDigest(entry) })));
    const result = await resultOf('repair_chain');
    expect(result.status).toBe('failed');
    expect(result.violations).toEqual([
      {
        collection: 'repair_ledger',
        record_id: '2',
        problem: 'prev_digest does not link to the slot before',
      },
    ]);
  });

  it('make the status failed, and the summary lists the failures', async () => {
    const status = await call<{ payload: { certification: string } }>(
      app.url,
      'GET',
      '/v1/proofs/status',
      { key: proposer.apiKey },
    );
    expect(status.body.payload.certification).toBe('failed');
    const summary = await call<{
      payload: {
        runs: number;
        by_day: { runs: number; failed: number }[];
        newest_failures: CheckResult[];
      };
    }>(app.url, 'GET', '/v1/proofs/summary', { key: proposer.apiKey });
    expect(summary.status).toBe(200);
    expect(summary.body.payload.runs).toBeGreaterThanOrEqual(9);
    expect(summary.body.payload.by_day[0].failed).toBeGreaterThanOrEqual(7);
    expect(new Set(summary.body.payload.newest_failures.map((f) => f.name))).toEqual(
      new Set([
        'action_ledger_chain',
        'executions_approved',
        'world_history_replay',
        'artifacts_integrity',
        'no_secrets',
        'event_dedup',
        'repair_chain',
      ]),
    );
  });
});
