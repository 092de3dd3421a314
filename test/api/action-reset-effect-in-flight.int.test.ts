import { ledgerOfAction, proposeWebhook } from '../helpers/actions';
import { eventually } from '../helpers/eventually';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { temporalCliOk, updateTask } from '../helpers/temporal-cli';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';
import { WebhookReceiver } from '../helpers/webhook-receiver';

// The reset matrix's cells with the effect in flight (docs/actions.md, "Resets"): a
// `webhook.post` whose receiver takes seconds, approved and executed, reset while the POST
// is being delivered. Whichever task the reset goes back to, the action ends in a final
// status the ledger records, the api and the workflow agree, and every POST the receiver
// got carries the action id as its Idempotency-Key and is applied once, as `executed`.

/** How long the receiver holds each POST: the reset happens while one is in flight. */
const RECEIVER_DELAY_MS = 8000;

const receiver = new WebhookReceiver();
let receiverUrl: string;
let app: TestApp;
let worker: TestWorker;
let ada: TestKey;
let ben: TestKey;
beforeAll(async () => {
  receiverUrl = await receiver.start();
  receiver.delayMs = RECEIVER_DELAY_MS;
  app = await startTestApp('reset-effect-in-flight', {
    env: {
      SERVICE_MONITOR_INTERVAL_MS: '300',
      WEBHOOK_ALLOWLIST: `${receiverUrl}/`,
      // Well past the receiver's delay, within the effect activity's 15 s.
      WEBHOOK_TIMEOUT_MS: '12000',
    },
  });
  worker = await startTestWorker(app.deps);
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [ada, ben] = await Promise.all([createTestKey(app, strategic), createTestKey(app, strategic)]);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
  await receiver.stop();
});

const actionStatus = async (id: string) => {
  const res = await call<{ payload: { status: string } }>(
    app.url,
    'GET',
    `/v1/external-actions/${id}`,
    { key: ben.apiKey },
  );
  expect(res.status).toBe(200);
  return res.body.payload.status;
};
const decide = (id: string, decision: 'approve' | 'execute') =>
  call(app.url, 'POST', `/v1/external-actions/${id}/${decision}`, {
    key: ben.apiKey,
    body: { reason: decision },
  });
const describeRun = async (id: string) =>
  (await app.deps.temporal.getClient()).workflow.getHandle(`action-${id}`).describe();

/** Ada's webhook, approved by Ben and executed: answers once its POST is at the receiver. */
async function effectInFlight(): Promise<string> {
  const id = await proposeWebhook(app, ada, `${receiverUrl}/hook`);
  expect((await decide(id, 'approve')).status).toBe(200);
  const arrived = receiver.arrivals;
  void decide(id, 'execute');
  await eventually(
    async () => receiver.arrivals,
    (arrivals) => arrivals > arrived,
  );
  expect(await actionStatus(id)).toBe('executing');
  return id;
}

const reset = (id: string, how: string[]) =>
  temporalCliOk(app, [
    ...['workflow', 'reset', '--workflow-id', `action-${id}`, '--reason', 'reset mid-effect'],
    ...how,
  ]);

/**
 * Once the reset has played out: the workflow closed, the ledger's newest entry final, the
 * api showing it, and every POST that arrived answered (the base run's one included).
 */
async function playedOut(id: string) {
  const end = await eventually(
    async () => {
      const ledger = await ledgerOfAction(app, ben, id);
      return {
        events: ledger.map((entry) => entry.event),
        status: ledger[ledger.length - 1].status,
        api: await actionStatus(id),
        run: (await describeRun(id)).status.name,
        unanswered: receiver.arrivals - receiver.calls.length,
      };
    },
    ({ status, api, run, unanswered }) =>
      status !== 'executing' && api === status && run !== 'RUNNING' && !unanswered,
    60_000,
  );
  const ledger = await ledgerOfAction(app, ben, id);
  return { ...end, newest: ledger[ledger.length - 1] };
}

/** Every POST of this action: its Idempotency-Key is the action id, applied once. */
function expectAppliedOnce(id: string) {
  const posts = receiver.calls.filter((c) => c.headers['idempotency-key'] === id);
  expect(posts.length).toBeGreaterThanOrEqual(1);
  // The base run's POST in flight at the reset, and the new run's redelivery.
  expect(posts.length).toBeLessThanOrEqual(2);
  expect(receiver.applied.filter((key) => key === id)).toHaveLength(1);
}

describe('a reset while the effect is in flight', () => {
  it('to the task that took the approval: the new run takes approve and execute again, delivers under the same key and ends executed', async () => {
    const id = await effectInFlight();
    await reset(id, ['--event-id', await updateTask(app, `action-${id}`, 'approve')]);
    const end = await playedOut(id);
    expect(end.status).toBe('executed');
    expect(end.api).toBe('executed');
    expect(end.run).toBe('COMPLETED');
    expect(end.events).not.toContain('run_refused');
    expect(end.events.filter((event) => event === 'executed')).toHaveLength(1);
    // Recorded by the reset's run, which names the reset.
    expect(end.newest.detail['reset']).toMatchObject({
      reason: expect.stringMatching(/reset mid-effect/),
    });
    expectAppliedOnce(id);
    // Execute answers from where the ledger ended it.
    expect((await decide(id, 'execute')).status).toBe(409);
  }, 120_000);

  it('to the last workflow task: the new run redoes the effect under the same key and ends executed', async () => {
    const id = await effectInFlight();
    await reset(id, ['--type', 'LastWorkflowTask']);
    const end = await playedOut(id);
    expect(end.status).toBe('executed');
    expect(end.api).toBe('executed');
    expect(end.run).toBe('COMPLETED');
    expect(end.events).not.toContain('run_refused');
    expect(end.events.filter((event) => event === 'executed')).toHaveLength(1);
    expectAppliedOnce(id);
    expect((await decide(id, 'execute')).status).toBe(409);
  }, 120_000);
});
