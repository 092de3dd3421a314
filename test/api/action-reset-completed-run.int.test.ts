import { join } from 'node:path';
import { ledgerOfAction } from '../helpers/actions';
import { eventually } from '../helpers/eventually';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { temporalCliOk } from '../helpers/temporal-cli';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';
import { bundleWorkflowsWith } from '../helpers/workflow-bundles';

// Every reset cell converges (docs/actions.md, "Resets"): a run that completes while its
// action's ledger has not ended it (here a build whose runs complete at once, as one before
// a fix would after a reset) leaves no action open forever. The api records `aborted`, as
// for a run terminated from Temporal, and refuses decisions on it.

let app: TestApp;
let worker: TestWorker;
let ada: TestKey;
let ben: TestKey;
beforeAll(async () => {
  app = await startTestApp('reset-completed-run', { env: { SERVICE_MONITOR_INTERVAL_MS: '300' } });
  worker = await startTestWorker(app.deps);
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [ada, ben] = await Promise.all([createTestKey(app, strategic), createTestKey(app, strategic)]);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const actionOf = async (id: string) => {
  const res = await call<{ payload: { status: string } }>(
    app.url,
    'GET',
    `/v1/external-actions/${id}`,
    { key: ben.apiKey },
  );
  expect(res.status).toBe(200);
  return res.body.payload;
};
const decide = (id: string, decision: 'approve' | 'execute') =>
  call<{ error?: { message: string } }>(app.url, 'POST', `/v1/external-actions/${id}/${decision}`, {
    key: ben.apiKey,
    body: { reason: decision },
  });

describe('a reset whose run completes short of a final status', () => {
  it('ends the action aborted, recorded by the api with the run that completed', async () => {
    const proposed = await call<{ payload: { action_id: string } }>(
      app.url,
      'POST',
      '/v1/external-actions/propose',
      {
        key: ada.apiKey,
        body: {
          action_kind: 'notify',
          target: {},
          parameters: { message: 'deploy at 5', channel: 'ops' },
          bounds: {},
        },
      },
    );
    expect(proposed.status).toBe(201);
    const id = proposed.body.payload.action_id;
    expect((await decide(id, 'approve')).status).toBe(200);
    // The reset's run goes to a worker of the completing build.
    await worker.stop();
    worker = await startTestWorker(app.deps, undefined, {
      workflowBundleCode: await bundleWorkflowsWith(
        join(__dirname, '../helpers/completing-build.interceptor.ts'),
      ),
    });
    const client = await app.deps.temporal.getClient();
    await temporalCliOk(app, [
      ...['workflow', 'reset', '--workflow-id', `action-${id}`, '--reason', 'completing reset'],
      ...['--type', 'FirstWorkflowTask'],
    ]);
    const run = await eventually(
      () => client.workflow.getHandle(`action-${id}`).describe(),
      (described) => described.status.name !== 'RUNNING',
    );
    expect(run.status.name).toBe('COMPLETED');
    // No decision, no closed run for the closed-run watcher: the api finds it by itself.
    await eventually(
      async () => (await ledgerOfAction(app, ben, id)).map((entry) => entry.status),
      (statuses) => statuses[statuses.length - 1] !== 'approved',
    );
    const ledger = await ledgerOfAction(app, ben, id);
    const aborted = ledger[ledger.length - 1];
    expect(aborted).toMatchObject({ event: 'aborted', status: 'aborted', actor: null });
    expect(aborted.detail['previous_status']).toBe('approved');
    expect(aborted.detail['temporal']).toMatchObject({
      status: 'completed',
      run_id: run.runId,
      reason: expect.stringMatching(/completing reset/),
    });
    expect(ledger.filter((entry) => entry.event === 'aborted')).toHaveLength(1);
    expect((await actionOf(id)).status).toBe('aborted');
    const execute = await decide(id, 'execute');
    expect(execute.status).toBe(409);
    expect(execute.body.error?.message).toMatch(/aborted/);
  }, 120_000);
});
