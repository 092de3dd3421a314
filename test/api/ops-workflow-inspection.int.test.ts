import type { WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { proposeUpdate } from '../helpers/actions';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { activityDepsOf, startTestWorker } from '../helpers/test-worker';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { testTemporalAddress, workflowBundleCode } from '../test-env';

// What a person sees in the Temporal Web UI of a checkpoint, a proof run, a scenario run and
// a notification delivery (issue 18): the static summary and details as `describe()` gives
// them, the current details (`__temporal_workflow_metadata`) as they change from one
// transition to the next, and `workflow_url` in the api's answers. A gated worker (the real
// activities, each held on demand) stops a run between transitions to look at it there.

const receiver = new WebhookReceiver();
let receiverUrl: string;
let app: TestApp;
let ada: TestKey;
const held = new Set<string>();
const waiting = new Map<string, () => void>();
let gated: { worker: Worker; running: Promise<void>; connection: NativeConnection };

beforeAll(async () => {
  receiverUrl = await receiver.start();
  app = await startTestApp('ops_inspection', { env: { WEBHOOK_ALLOWLIST: `${receiverUrl}/` } });
  ada = await createTestKey(app, {
    entitlement: 'strategic',
    accessLayer: 2,
    name: 'Ada Lovelace',
  });
  const activities = createActivities({
    ...activityDepsOf(app.deps),
    workerIdentity: 'gated@test',
    startDelivery: async () => undefined,
  }) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const gatedActivities = Object.fromEntries(
    Object.entries(activities).map(([name, fn]) => [
      name,
      async (...args: unknown[]) => {
        if (held.has(name)) await new Promise<void>((resolve) => waiting.set(name, resolve));
        return fn(...args);
      },
    ]),
  );
  const connection = await NativeConnection.connect({
    address: testTemporalAddress(),
  });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue: app.deps.config.taskQueue,
    workflowBundle: { code: workflowBundleCode() },
    activities: gatedActivities,
  });
  gated = { worker, running: worker.run(), connection };
}, 60_000);
afterAll(async () => {
  if (gated?.worker.getState() === 'RUNNING') gated.worker.shutdown();
  await gated?.running.catch(() => undefined);
  await gated?.connection.close();
  await app?.close();
  await receiver.stop();
});

/** Lets the held activity `name` go on, and those after it pass. */
function release(name: string) {
  held.delete(name);
  waiting.get(name)?.();
  waiting.delete(name);
}

/** What the Web UI shows: summary, details, current details and search attributes. */
async function inspect(handle: WorkflowHandle) {
  const description = await handle.describe();
  const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return {
    summary: (await description.staticSummary()) ?? '',
    details: (await description.staticDetails()) ?? '',
    current: metadata.currentDetails ?? '',
    attributes: Object.fromEntries(
      description.typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value]),
    ),
  };
}

/** Polls the current details until `wanted` is in them; the details then. */
async function currentWith(handle: WorkflowHandle, wanted: string): Promise<string> {
  let current = '';
  for (let i = 0; i < 200; i++) {
    current = await inspect(handle)
      .then((seen) => seen.current)
      .catch(() => '');
    if (current.includes(wanted)) return current;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`current details never held "${wanted}": ${current}`);
}

/** Each activity's and timer's summary in the history, one a line. */
async function story(handle: WorkflowHandle): Promise<string> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .map((event) => event.userMetadata?.summary?.data)
    .filter((data): data is Uint8Array => Boolean(data))
    .map((data) => Buffer.from(data).toString('utf8'))
    .join('\n');
}

const handleOf = async (workflowId: string) =>
  (await app.deps.temporal.getClient()).workflow.getHandle(workflowId);
const uiUrl = (workflowId: string) =>
  `${app.deps.config.temporalUiUrl}/namespaces/default/workflows/${workflowId}`;
const base = () => app.deps.config.publicBaseUrl;

describe('continuous-ops workflows in the Temporal Web UI', () => {
  it('a checkpoint: named summary and details, current details at each scope', async () => {
    held.add('copyCollection');
    const started = await call<{ payload: { checkpoint_id: string; workflow_url: string } }>(
      app.url,
      'POST',
      '/v1/continuous-ops/checkpoint',
      { key: ada.apiKey, body: { label: 'before the move', scope: ['world', 'actions'] } },
    );
    expect(started.status).toBe(202);
    const id = started.body.payload.checkpoint_id;
    expect(started.body.payload.workflow_url).toBe(uiUrl(`checkpoint-${id}`));
    const handle = await handleOf(`checkpoint-${id}`);

    const first = await currentWith(handle, 'copy scope `world`');
    expect(first).toContain('**Stage:** running');
    expect(first).toContain('**Progress:** 0 of 2 scopes');
    const seen = await inspect(handle);
    expect(seen.summary).toBe(
      `checkpoint world, actions · ${id} · by Ada Lovelace · before the move`,
    );
    expect(seen.details).toContain(`Ada Lovelace (\`${ada.principalId}\`)`);
    expect(seen.details).toContain(`${base()}/v1/continuous-ops/checkpoints/${id}`);
    expect(seen.details).toContain(`${base()}/console`);
    expect(seen.attributes).toMatchObject({
      ProposedBy: ada.principalId,
      OpsStatus: 'checkpoint.running',
    });

    release('copyCollection');
    const last = await currentWith(handle, '**Stage:** completed');
    expect(last).toContain('**Progress:** 2 of 2 scopes (world, actions)');
    expect(last).toContain('**Next:** nothing: it ended completed');
    expect(last).toContain(`checkpoints/${id}/manifest.json`);
    // The details are set before the record is written: read until the api has it too.
    let got = { status: '', workflow_url: '' };
    for (let i = 0; i < 100 && got.status !== 'completed'; i++) {
      if (i) await new Promise((resolve) => setTimeout(resolve, 100));
      got = (
        await call<{ payload: typeof got }>(
          app.url,
          'GET',
          `/v1/continuous-ops/checkpoints/${id}`,
          { key: ada.apiKey },
        )
      ).body.payload;
    }
    expect(got).toMatchObject({ status: 'completed', workflow_url: uiUrl(`checkpoint-${id}`) });
    const text = await story(handle);
    expect(text).toContain("read the world's position");
    expect(text).toMatch(/copy collection \w+ \(scope world\)/);
    expect(text).toContain('write manifest.json of 2 scopes');
    expect(text).toContain('record checkpoint completed, 2 of 2 scopes');
  }, 60_000);

  it('a proof run: progress check by check, then its outcome', async () => {
    held.add('runProofCheck');
    const checks = ['action_ledger_chain', 'executions_approved'];
    const started = await call<{ payload: { run_id: string; workflow_url: string } }>(
      app.url,
      'POST',
      '/v1/proofs/checks',
      { key: ada.apiKey, body: { checks, max_records: 500 } },
    );
    expect(started.status).toBe(202); // held: still running after the route's wait
    const id = started.body.payload.run_id;
    expect(started.body.payload.workflow_url).toBe(uiUrl(`proof-${id}`));
    const handle = await handleOf(`proof-${id}`);
    const first = await currentWith(handle, '**Progress:** 0 of 2 checks');
    expect(first).toContain('**Next:** check `action_ledger_chain` (at most 500 records)');
    const seen = await inspect(handle);
    expect(seen.summary).toBe(
      `proof run · action_ledger_chain, executions_approved (≤ 500 records each) · ${id} · by Ada Lovelace`,
    );
    expect(seen.details).toContain(`Ada Lovelace (\`${ada.principalId}\`)`);
    expect(seen.details).toContain(`${base()}/v1/proofs/status`);
    expect(seen.attributes).toMatchObject({ ProposedBy: ada.principalId });

    release('runProofCheck');
    const last = await currentWith(handle, '**Stage:** completed');
    expect(last).toContain('**Progress:** 2 of 2 checks');
    expect(last).toContain('**Next:** nothing: it ended completed');
    const status = await call<{
      payload: { newest_run: { run_id: string; workflow_url: string } };
    }>(app.url, 'GET', '/v1/proofs/summary', { key: ada.apiKey });
    expect(status.status).toBe(200);
    expect(status.body.payload.newest_run).toMatchObject({
      run_id: id,
      workflow_url: uiUrl(`proof-${id}`),
    });
    const text = await story(handle);
    expect(text).toContain('check action_ledger_chain (at most 500 records)');
    expect(text).toContain('record completed, 2 of 2 checks');
  }, 60_000);

  it('a scenario run: driving, judging, then its verdict', async () => {
    held.add('driveScenario');
    held.add('reportScenario');
    const started = await call<{ payload: { run_id: string; workflow_url: string } }>(
      app.url,
      'POST',
      '/v1/scenarios/run',
      { key: ada.apiKey, body: { scenario: 'approval-drill' } },
    );
    expect(started.status).toBe(202);
    const id = started.body.payload.run_id;
    expect(started.body.payload.workflow_url).toBe(uiUrl(`scenario-${id}`));
    const handle = await handleOf(`scenario-${id}`);
    const driving = await currentWith(handle, '**Stage:** running (driving)');
    expect(driving).toContain('**Next:** the drive through the api');
    const seen = await inspect(handle);
    expect(seen.summary).toMatch(
      new RegExp(`^scenario approval-drill · ${id} · by Ada Lovelace · `),
    );
    expect(Buffer.byteLength(seen.summary)).toBeLessThanOrEqual(200);
    expect(seen.details).toContain(`Ada Lovelace (\`${ada.principalId}\`)`);
    expect(seen.details).toContain(`${base()}/v1/scenarios`);
    expect(seen.details).toContain(`scenarios/${id}/report.md`);
    expect(seen.attributes).toMatchObject({ ProposedBy: ada.principalId });

    release('driveScenario');
    const judging = await currentWith(handle, '**Stage:** running (judging)');
    expect(judging).toContain('**Next:** the observations judged');
    release('reportScenario');
    const last = await currentWith(handle, '**Next:** nothing: it ended');
    expect(last).toMatch(/\*\*Stage:\*\* (passed|failed)/);
    expect(last).toContain(`scenarios/${id}/report.md`);
    const list = await call<{
      payload: { items: { newest_runs: { run_id: string; workflow_url: string }[] }[] };
    }>(app.url, 'GET', '/v1/scenarios', { key: ada.apiKey });
    const run = list.body.payload.items
      .flatMap((item) => item.newest_runs)
      .find((r) => r.run_id === id);
    expect(run?.workflow_url).toBe(uiUrl(`scenario-${id}`));
    const text = await story(handle);
    expect(text).toContain('drive scenario approval-drill through the api');
    expect(text).toContain('judge the observations, write the report');
  }, 90_000);
});

describe('a notification delivery in the Temporal Web UI', () => {
  it('names what it delivers to whom, and its stage: waiting, delivering, delivered', async () => {
    // Deliveries are started by the real worker's notifier: swap the gated worker for it.
    gated.worker.shutdown();
    await gated.running;
    const worker = await startTestWorker(app.deps);
    try {
      receiver.delayMs = 1500; // holds each POST in flight: the `delivering` stage is seen
      const sub = await call<{ payload: { subscription_id: string } }>(
        app.url,
        'POST',
        '/v1/admin/subscriptions/create',
        {
          key: app.adminKey,
          body: {
            name: 'ops channel',
            url: `${receiverUrl}/ops`,
            events: ['action.awaiting_approval', 'action.reminder'],
            match: { shared_context_id: 'ctx-ops-inspection' },
            reminder_before_seconds: 55,
          },
        },
      );
      expect(sub.status).toBe(201);
      const subId = sub.body.payload.subscription_id;
      const actionId = await proposeUpdate(app, ada, {
        patch: { status: 'sent' },
        bounds: { expires_in_seconds: 60 },
        shared_context_id: 'ctx-ops-inspection',
        reason: 'tell the team',
      });
      type Delivery = { delivery_id: string; event: string; status: string };
      let items: Delivery[] = [];
      for (let i = 0; i < 100 && items.length < 2; i++) {
        items = (
          await call<{ payload: { items: Delivery[] } }>(
            app.url,
            'GET',
            `/v1/admin/subscriptions/${subId}/deliveries?limit=10`,
            { key: app.adminKey },
          )
        ).body.payload.items;
        if (items.length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const now = items.find((d) => d.event === 'action.awaiting_approval')!;
      const reminder = items.find((d) => d.event === 'action.reminder')!;

      const handle = await handleOf(`notification-${now.delivery_id}`);
      await currentWith(handle, '**Stage:** delivering');
      const seen = await inspect(handle);
      expect(seen.summary).toBe(`deliver action.awaiting_approval of ${actionId} to ops channel`);
      expect(seen.details).toContain('ops channel');
      expect(seen.details).toContain(`${base()}/v1/admin/subscriptions/${subId}/deliveries`);
      expect(seen.current).toContain('**Next:** a 2xx from the receiver');
      await currentWith(handle, '**Stage:** delivered');
      expect(await story(handle)).toContain(
        `deliver action.awaiting_approval of ${actionId} to ops channel (signed POST`,
      );

      const later = await handleOf(`notification-${reminder.delivery_id}`);
      const waitingNow = await currentWith(later, '**Stage:** waiting');
      expect(waitingNow).toMatch(/\*\*Next:\*\* its due time, \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/);
      expect((await inspect(later)).summary).toBe(
        `deliver action.reminder of ${actionId} to ops channel`,
      );
      await currentWith(later, '**Stage:** delivered');
      const text = await story(later);
      expect(text).toMatch(/wait until due at \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/);
      expect(text).toContain('check the notification still matters');
    } finally {
      receiver.delayMs = 0;
      await worker.stop();
    }
  }, 90_000);
});
