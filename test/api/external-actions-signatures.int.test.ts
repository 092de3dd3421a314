import { proposeUpdate } from '../helpers/actions';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createDecisionSigner, decisionSeed } from '../../src/auth/decision-signer';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Decisions sent around the api (the Temporal UI's "Send an Update", the CLI) are refused:
// the workflow checks the api's Ed25519 signature (docs/actions.md). Driven with the real
// `temporal` CLI against the test server, as an attacker with server access would.
const run = promisify(execFile);
const TEMPORAL_CLI = join(__dirname, '../../.tools/bin/temporal');

interface ActionView {
  action_id: string;
  status: string;
  approvals: { principal_id: string }[];
  refused_decisions?: number;
  dry_run: { plan_digest: string };
}
interface LedgerEntry {
  event: string;
  actor: unknown;
  detail: { problem?: string; claimed_by?: { principal_id: string } };
}

let app: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let approver: TestKey;
beforeAll(async () => {
  app = await startTestApp('signatures');
  worker = await startTestWorker(app.deps);
  proposer = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  approver = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

async function proposeTwoApprovalAction(): Promise<ActionView> {
  const id = await proposeUpdate(app, proposer, {
    patch: { status: 'published' },
    bounds: { required_approvals: 2 },
  });
  return actionOf(id);
}

/** `temporal workflow update execute`: resolves with the CLI's exit code and output. */
async function sendUpdate(actionId: string, name: string, input: Record<string, unknown>) {
  const args = [
    ...['workflow', 'update', 'execute', '--workflow-id', `action-${actionId}`],
    ...['--name', name, '--input', JSON.stringify(input)],
    ...['--address', app.deps.config.temporalAddress, '--namespace', 'default'],
  ];
  try {
    const { stdout, stderr } = await run(TEMPORAL_CLI, args, { timeout: 30_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

const actionOf = async (id: string) =>
  (
    await call<{ payload: ActionView }>(app.url, 'GET', `/v1/external-actions/${id}`, {
      key: approver.apiKey,
    })
  ).body.payload;

const ledgerOf = async (id: string) =>
  (
    await call<{ payload: { items: LedgerEntry[] } }>(
      app.url,
      'GET',
      `/v1/external-actions/history?action_id=${id}&limit=50`,
      { key: approver.apiKey },
    )
  ).body.payload.items;

describe('decisions sent around the api', () => {
  it('refuses an unsigned approval by a principal that does not exist, and records it', async () => {
    const action = await proposeTwoApprovalAction();
    const forged = await sendUpdate(action.action_id, 'approve', {
      principal_id: 'prn_forged00000000000000000000',
      key_id: '000000000000',
    });
    expect(forged.code).not.toBe(0);
    expect(forged.output).toMatch(/not signed by the api/);

    const after = await actionOf(action.action_id);
    expect(after.status).toBe('awaiting_approval');
    expect(after.approvals).toEqual([]);
    expect(after.refused_decisions).toBe(1);
    const refused = (await ledgerOf(action.action_id)).filter(
      (e) => e.event === 'decision_refused',
    );
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      actor: null,
      detail: { claimed_by: { principal_id: 'prn_forged00000000000000000000' } },
    });
  });

  it('takes a decision signed with the api key once, and refuses its replay and any edit', async () => {
    const action = await proposeTwoApprovalAction();
    const signer = createDecisionSigner(decisionSeed(app.deps.config));
    const claim = {
      action_id: action.action_id,
      decision: 'approve' as const,
      principal_id: approver.principalId,
      key_id: approver.keyId,
      role: 'member',
      plan_digest: null,
      reason: 'looks right',
    };
    const signed = {
      principal_id: claim.principal_id,
      key_id: claim.key_id,
      role: claim.role,
      reason: claim.reason,
      ...signer.sign(claim),
    };

    const edited = await sendUpdate(action.action_id, 'approve', { ...signed, reason: 'edited' });
    expect(edited.code).not.toBe(0);
    expect(edited.output).toMatch(/signature does not match/);
    const elsewhere = await proposeTwoApprovalAction();
    const moved = await sendUpdate(elsewhere.action_id, 'approve', signed);
    expect(moved.output).toMatch(/signature does not match/);

    const genuine = await sendUpdate(action.action_id, 'approve', signed);
    expect(genuine.code).toBe(0);
    expect((await actionOf(action.action_id)).approvals).toEqual([
      expect.objectContaining({ principal_id: approver.principalId }),
    ]);

    const replay = await sendUpdate(action.action_id, 'approve', signed);
    expect(replay.code).not.toBe(0);
    expect(replay.output).toMatch(/used already \(a replay\)/);
    const after = await actionOf(action.action_id);
    expect(after.approvals).toHaveLength(1);
    expect(after.refused_decisions).toBe(2);
  });

  it('still takes decisions made through the api', async () => {
    const action = await proposeTwoApprovalAction();
    const res = await call<{ payload: ActionView }>(
      app.url,
      'POST',
      `/v1/external-actions/${action.action_id}/approve`,
      { key: approver.apiKey, body: { reason: 'fine', plan_digest: action.dry_run.plan_digest } },
    );
    expect(res.status).toBe(200);
    expect(res.body.payload.approvals).toHaveLength(1);
    expect(res.body.payload.refused_decisions).toBe(0);
  });
});
