import { canonicalDigest } from '../../src/lib/canonical-digest';
import type { ActionLedgerEntry } from '../../src/store/external-actions.repo';
import { proposeUpdate } from '../helpers/actions';
import { eventually } from '../helpers/eventually';
import { temporalCliOk } from '../helpers/temporal-cli';
import { storedIn } from '../helpers/collections';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Issue 41, item 4: whoever holds the database can edit it, recompute every digest with the
// published recipe and rewrite the projection. Each such edit must still fail a proof check
// (docs/actions.md, "What the ledger protects against whom"), because the seals and the
// checkpoints are signed with a key of the service's configuration, not of the database.
interface CheckResult {
  name: string;
  status: string;
  checked: number;
  violations: { collection: string; record_id: string; problem: string }[];
}

let app: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let approver: TestKey;
beforeAll(async () => {
  app = await startTestApp('ledger-tamper');
  worker = await startTestWorker(app.deps);
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [proposer, approver] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
  ]);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const db = () => storedIn(app.deps.db);

const resultOf = async (check: string): Promise<CheckResult> => {
  const res = await call<{ payload: { results: CheckResult[] } }>(
    app.url,
    'POST',
    '/v1/proofs/checks',
    { key: proposer.apiKey, body: { checks: [check] } },
  );
  expect(res.status).toBe(200);
  return res.body.payload.results[0];
};

/** The violations a check names for one action (other tests' tampering stays in the store). */
const violationsOf = (result: CheckResult, actionId: string) =>
  result.violations.filter((v) => v.record_id.startsWith(actionId));

/** An action proposed, approved by another principal and executed, through the API. */
async function executedAction(): Promise<string> {
  const actionId = await proposeUpdate(app, proposer, {
    patch: { status: 'published' },
    attributes: { status: 'draft' },
  });
  for (const path of ['approve', 'execute']) {
    const res = await call(app.url, 'POST', `/v1/external-actions/${actionId}/${path}`, {
      key: approver.apiKey,
      body: {},
    });
    expect(res.status).toBe(200);
  }
  return actionId;
}

const ledgerOf = async (actionId: string): Promise<ActionLedgerEntry[]> =>
  db().actionLedger.find({ action_id: actionId }).sort({ seq: 1 }).toArray();

/**
 * What the database holder can do with the published recipe alone: rechain the entries
 * from `fromSeq` on (each digest recomputed over everything but `digest` and `seal`), and
 * point the projection at the new head.
 */
async function rechain(actionId: string, fromSeq: number, strip: boolean): Promise<void> {
  const entries = await ledgerOf(actionId);
  let prev: string | null = null;
  for (const entry of entries) {
    if (entry.seq >= fromSeq) {
      const { digest: _digest, seal, ...body } = entry as ActionLedgerEntry & { seal?: unknown };
      const rechained = { ...body, prev_digest: prev };
      const digest = canonicalDigest(rechained);
      await db().actionLedger.replaceOne(
        { _id: entry._id },
        { ...rechained, digest, ...(strip || seal === undefined ? {} : { seal }) },
      );
      prev = digest;
    } else prev = entry.digest;
  }
  await db().actions.updateOne({ _id: actionId }, { $set: { ledger_head: prev! } });
}

describe('the ledger and the projection on a healthy store', () => {
  it('pass the chain and the projection checks', async () => {
    const actionId = await executedAction();
    const entries = await ledgerOf(actionId);
    expect(entries.length).toBeGreaterThanOrEqual(4);
    // The history shows each entry's seal, for a reader to verify with the public key.
    const history = await call<{ payload: { items: { seal?: { key_id: string } }[] } }>(
      app.url,
      'GET',
      `/v1/external-actions/history?action_id=${actionId}`,
      { key: proposer.apiKey },
    );
    expect(history.status).toBe(200);
    expect(history.body.payload.items.map((item) => item.seal?.key_id)).toEqual(
      entries.map(() => app.deps.ledgerSeal.keyId),
    );
    for (const check of ['action_ledger_chain', 'actions_match_ledger']) {
      const result = await resultOf(check);
      expect({ check, status: result.status, violations: result.violations }).toEqual({
        check,
        status: 'passed',
        violations: [],
      });
      expect(result.checked).toBeGreaterThan(0);
    }
  });
});

describe('both writers seal', () => {
  it("the api's aborted entry (a workflow terminated from Temporal) is sealed and checkpointed", async () => {
    const actionId = await proposeUpdate(app, proposer, {
      patch: { status: 'published' },
      attributes: { status: 'draft' },
    });
    await temporalCliOk(app, ['workflow', 'terminate', '--workflow-id', `action-${actionId}`]);
    const entries = await eventually(
      () => ledgerOf(actionId),
      (ledger) => ledger.some((entry) => entry.event === 'aborted'),
    );
    const aborted = entries[entries.length - 1];
    expect(aborted).toMatchObject({
      event: 'aborted',
      seal: { key_id: app.deps.ledgerSeal.keyId },
    });
    const checkpoints = await app.deps.ledgerSeal.checkpoints();
    expect(checkpoints).toContainEqual(
      expect.objectContaining({ action_id: actionId, seq: aborted.seq, head: aborted.digest }),
    );
    for (const check of ['action_ledger_chain', 'actions_match_ledger']) {
      expect(violationsOf(await resultOf(check), actionId)).toEqual([]);
    }
  });
});

describe('tampering by the database holder', () => {
  it('a rewritten detail.reason with every digest and the head recomputed fails action_ledger_chain', async () => {
    const actionId = await executedAction();
    const approved = (await ledgerOf(actionId)).find((entry) => entry.event === 'approved')!;
    await db().actionLedger.updateOne(
      { _id: approved._id },
      { $set: { 'detail.reason': 'rewritten later' } },
    );
    await rechain(actionId, approved.seq, false);

    const result = await resultOf('action_ledger_chain');
    expect(result.status).toBe('failed');
    const found = violationsOf(result, actionId);
    expect(found).toContainEqual({
      collection: 'action_ledger',
      record_id: approved._id,
      problem: expect.stringMatching(/seal does not verify/),
    });
    // The checkpoint written when the batch was recorded names the head it had then.
    expect(found.some((v) => /checkpoint/.test(v.problem))).toBe(true);
  });

  it('the same rewrite with the seals stripped fails action_ledger_chain too', async () => {
    const actionId = await executedAction();
    const approved = (await ledgerOf(actionId)).find((entry) => entry.event === 'approved')!;
    await db().actionLedger.updateOne(
      { _id: approved._id },
      { $set: { 'detail.reason': 'rewritten later' } },
    );
    await rechain(actionId, 1, true);

    const result = await resultOf('action_ledger_chain');
    expect(result.status).toBe('failed');
    const found = violationsOf(result, actionId);
    expect(found).toContainEqual({
      collection: 'action_ledger',
      record_id: approved._id,
      problem: expect.stringMatching(/unsealed/),
    });
  });

  it('entries deleted from the end, with the seq and head reset, fail action_ledger_chain by the checkpoints', async () => {
    const actionId = await executedAction();
    const entries = await ledgerOf(actionId);
    const kept = entries.filter(
      (entry) => entry.event !== 'executing' && entry.event !== 'executed',
    );
    const last = kept[kept.length - 1];
    expect(kept.length).toBeLessThan(entries.length);
    await db().actionLedger.deleteMany({
      _id: { $in: entries.slice(kept.length).map((e) => e._id) },
    });
    await db().actions.updateOne(
      { _id: actionId },
      { $set: { seq: last.seq, ledger_head: last.digest, status: last.status } },
    );

    const result = await resultOf('action_ledger_chain');
    expect(result.status).toBe('failed');
    const missing = entries[entries.length - 1];
    expect(violationsOf(result, actionId)).toContainEqual({
      collection: 'action_ledger',
      record_id: missing._id,
      problem: expect.stringMatching(/checkpoint .* no such entry/),
    });
  });

  it("an action's 7 refusal entries deleted, with its seq and head reset, fail action_ledger_chain by the checkpoints", async () => {
    // The case: decisions sent around the api (no signature) are refused and traced.
    const actionId = await proposeUpdate(app, proposer, {
      patch: { status: 'published' },
      attributes: { status: 'draft' },
    });
    const client = await app.deps.temporal.getClient();
    const handle = client.workflow.getHandle(`action-${actionId}`);
    for (let i = 0; i < 7; i += 1) {
      await handle
        .executeUpdate('approve', { args: [{ principal_id: `prn_junk${i}`, key_id: 'x' }] })
        .catch(() => undefined);
    }
    const entries = await eventually(
      () => ledgerOf(actionId),
      (ledger) => ledger.filter((entry) => entry.event === 'decision_refused').length === 7,
    );
    const refusals = entries.filter((entry) => entry.event === 'decision_refused');
    const kept = entries.filter((entry) => entry.event !== 'decision_refused');
    const last = kept[kept.length - 1];
    expect(refusals.map((entry) => entry.seq)).toEqual(
      Array.from({ length: 7 }, (_, i) => last.seq + 1 + i),
    );
    await db().actionLedger.deleteMany({ _id: { $in: refusals.map((entry) => entry._id) } });
    await db().actions.updateOne(
      { _id: actionId },
      { $set: { seq: last.seq, ledger_head: last.digest, refused_decisions: 0 } },
    );

    const result = await resultOf('action_ledger_chain');
    expect(result.status).toBe('failed');
    expect(violationsOf(result, actionId)).toEqual(
      refusals.map((entry) => ({
        collection: 'action_ledger',
        record_id: entry._id,
        problem: expect.stringMatching(/^the checkpoint of .* but the ledger has no such entry$/),
      })),
    );
    expect(violationsOf(await resultOf('actions_match_ledger'), actionId)).toEqual([]);
  });

  it('a status flipped to approved in the projection fails actions_match_ledger', async () => {
    const actionId = await proposeUpdate(app, proposer, {
      patch: { status: 'published' },
      attributes: { status: 'draft' },
    });
    await db().actions.updateOne({ _id: actionId }, { $set: { status: 'approved' } });
    // What the flip buys: the api shows the action approved, execute allowed.
    const shown = await call<{ payload: { status: string } }>(
      app.url,
      'GET',
      `/v1/external-actions/${actionId}`,
      { key: approver.apiKey },
    );
    expect(shown.body.payload.status).toBe('approved');

    const result = await resultOf('actions_match_ledger');
    expect(result.status).toBe('failed');
    expect(violationsOf(result, actionId)).toEqual([
      {
        collection: 'external_actions',
        record_id: actionId,
        problem: expect.stringMatching(/status approved, but its ledger .*awaiting_approval/),
      },
    ]);
  });
});
