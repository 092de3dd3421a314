import {
  actionWorkflowId,
  planSettledUpdate,
  type ActionState,
} from '../../src/workflows/external-action.contract';
import { ActionStatusKey } from '../../src/workflows/shared.contract';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker } from '../helpers/test-worker';
import { killed, startWorkerProcess } from '../helpers/worker-process';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { signedNotifyInput } from '../helpers/signed-actions';

let app: TestApp;
let proposer: TestKey;
let approver: TestKey;
const receiver = new WebhookReceiver();
let receiverUrl: string;

beforeAll(async () => {
  receiverUrl = await receiver.start();
  app = await startTestApp('action_wf', { env: { WEBHOOK_ALLOWLIST: receiverUrl } });
  proposer = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  approver = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
});
afterAll(async () => {
  await app.close();
  await receiver.stop();
});

type Envelope = {
  payload: ActionState & { action_id: string };
  error?: { code: string; status?: string };
};
const decide = (id: string, decision: string) =>
  call<Envelope>(app.url, 'POST', `/v1/external-actions/${id}/${decision}`, {
    key: approver.apiKey,
    body: {},
  });

/** Starts an action workflow directly (signed as the api signs), with a window shorter than the API allows. */
async function startShortLived(expiresInSeconds: number): Promise<string> {
  const client = await app.deps.temporal.getClient();
  const input = signedNotifyInput(
    app.deps.decisionSigner,
    proposer,
    'short-lived',
    expiresInSeconds,
  );
  const actionId = input.action_id;
  const handle = await client.workflow.start('externalActionWorkflow', {
    workflowId: actionWorkflowId(actionId),
    taskQueue: app.deps.config.taskQueue,
    args: [input],
  });
  await handle.executeUpdate(planSettledUpdate);
  return actionId;
}

describe('approval windows (durable timers)', () => {
  it('expires an action nobody decided, and refuses later decisions with 409', async () => {
    const worker = await startTestWorker(app.deps);
    try {
      const client = await app.deps.temporal.getClient();
      const id = await startShortLived(2);
      const final = (await client.workflow.getHandle(actionWorkflowId(id)).result()) as ActionState;
      expect(final.status).toBe('expired');
      expect(Object.keys(final.status_timestamps)).toEqual([
        'proposed',
        'awaiting_approval',
        'expired',
      ]);
      const late = await decide(id, 'approve');
      expect(late.status).toBe(409);
      expect(late.body.error).toMatchObject({ code: 'invalid_state', status: 'expired' });
      const described = await client.workflow.getHandle(actionWorkflowId(id)).describe();
      expect(described.typedSearchAttributes.get(ActionStatusKey)).toBe('expired');
      // What an operator types in the Web UI's filter (visibility is eventually consistent).
      const query = `ActionStatus = "expired" AND WorkflowId = "${actionWorkflowId(id)}"`;
      let found: string[] = [];
      for (let i = 0; i < 50 && found.length === 0; i += 1) {
        found = [];
        for await (const execution of client.workflow.list({ query }))
          found.push(execution.workflowId);
        if (found.length === 0) await new Promise((r) => setTimeout(r, 200));
      }
      expect(found).toEqual([actionWorkflowId(id)]);
    } finally {
      await worker.stop();
    }
  });

  it('expires an approved action that is never executed', async () => {
    const worker = await startTestWorker(app.deps);
    try {
      const id = await startShortLived(3);
      expect((await decide(id, 'approve')).body.payload.status).toBe('approved');
      const client = await app.deps.temporal.getClient();
      const final = (await client.workflow.getHandle(actionWorkflowId(id)).result()) as ActionState;
      expect(final.status).toBe('expired');
      expect(final.status_timestamps.approved).toBeDefined();
    } finally {
      await worker.stop();
    }
  });
});

describe('surviving a worker crash', () => {
  it('completes once when the worker dies mid-approval and mid-execution', async () => {
    receiver.calls.length = 0;
    receiver.applied.length = 0;
    receiver.arrivals = 0;
    receiver.delayMs = 1500;
    let worker = startWorkerProcess(app, { WEBHOOK_ALLOWLIST: receiverUrl });
    try {
      const proposed = await call<Envelope>(app.url, 'POST', '/v1/external-actions/propose', {
        key: proposer.apiKey,
        body: {
          action_kind: 'webhook.post',
          target: { url: `${receiverUrl}/crash` },
          parameters: { n: 1 },
          bounds: {},
        },
      });
      expect(proposed.body.payload.status).toBe('awaiting_approval');
      const id = proposed.body.payload.action_id;

      // Mid-approval: the worker that planned the action dies; a new one takes over.
      await killed(worker);
      worker = startWorkerProcess(app, { WEBHOOK_ALLOWLIST: receiverUrl });
      expect((await decide(id, 'approve')).body.payload.status).toBe('approved');

      // Mid-execution: the worker dies while the webhook request is in flight.
      const executing = decide(id, 'execute');
      for (let i = 0; i < 100 && receiver.arrivals === 0; i += 1)
        await new Promise((r) => setTimeout(r, 50));
      await killed(worker);
      worker = startWorkerProcess(app, { WEBHOOK_ALLOWLIST: receiverUrl });
      await executing;

      const client = await app.deps.temporal.getClient();
      const final = (await client.workflow.getHandle(actionWorkflowId(id)).result()) as ActionState;
      expect(final.status).toBe('executed');
      expect(receiver.applied).toEqual([id]);
      expect(receiver.calls.length).toBeGreaterThanOrEqual(2);
      const stored = await call<Envelope>(app.url, 'GET', `/v1/external-actions/${id}`, {
        key: approver.apiKey,
      });
      expect(stored.body.payload.status).toBe('executed');
    } finally {
      receiver.delayMs = 0;
      await killed(worker);
    }
  }, 90_000);
});

describe('the lean shape (docs/workflow-versioning.md, "Shapes")', () => {
  it('a notify action takes 24 history events: one local activity per step, one timer, no patch', async () => {
    const worker = await startTestWorker(app.deps);
    try {
      const proposed = await call<Envelope>(app.url, 'POST', '/v1/external-actions/propose', {
        key: proposer.apiKey,
        body: { action_kind: 'notify', target: {}, parameters: { message: 'lean' }, bounds: {} },
      });
      expect(proposed.body.payload.status).toBe('awaiting_approval');
      const id = proposed.body.payload.action_id;
      expect((await decide(id, 'approve')).body.payload.status).toBe('approved');
      // The update answers the outcome: the api has nothing left to wait for.
      expect((await decide(id, 'execute')).body.payload.status).toBe('executed');

      const client = await app.deps.temporal.getClient();
      const history = await client.workflow.getHandle(actionWorkflowId(id)).fetchHistory();
      const events = history.events ?? [];
      type Event = (typeof events)[number];
      const count = (has: (event: Event) => unknown) => events.filter((e) => has(e)).length;
      const markers = events
        .map((event) => event.markerRecordedEventAttributes)
        .filter((marker) => marker !== undefined && marker !== null);
      // A local activity's marker names it in its `data` (core's LocalActivityMarkerData).
      const activityTypes = markers.map((marker) => {
        const payload = marker.details?.['data']?.payloads?.[0]?.data;
        if (!payload) return marker.markerName;
        return (JSON.parse(Buffer.from(payload).toString('utf8')) as { activity_type: string })
          .activity_type;
      });
      expect({
        events: events.length,
        localActivities: activityTypes,
        timersStarted: count((e) => e.timerStartedEventAttributes),
        timersCancelled: count((e) => e.timerCanceledEventAttributes),
        searchAttributeUpserts: count((e) => e.upsertWorkflowSearchAttributesEventAttributes),
      }).toEqual({
        events: 24,
        localActivities: ['openActionProposal', 'recordActionTransitions', 'executeRecorded'],
        timersStarted: 1,
        timersCancelled: 0,
        searchAttributeUpserts: 3,
      });
      const ledger = await app.deps.repos.externalActions.entriesFrom(id, 1);
      expect(ledger.map((entry) => entry.event)).toEqual([
        'proposed',
        'awaiting_approval',
        'approved',
        'executing',
        'executed',
      ]);
    } finally {
      await worker.stop();
    }
  }, 60_000);
});
