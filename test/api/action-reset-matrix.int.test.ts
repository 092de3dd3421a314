import { actionStateQuery, type ActionState } from '../../src/workflows/external-action.contract';
import { ledgerOfAction, seedObject, type LedgerEntryView } from '../helpers/actions';
import { storedIn } from '../helpers/collections';
import { eventually } from '../helpers/eventually';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { lastUpdateTask, temporalCliOk } from '../helpers/temporal-cli';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';
import { WebhookReceiver } from '../helpers/webhook-receiver';

// The reset matrix of docs/actions.md, "Resets": every reset kind of the `temporal` CLI
// against an action in each status. Whatever the row, once the reset has played out the api,
// the ledger and the workflow agree, and nothing happens that the ledger did not record;
// each cell's outcome is the table's.

type Status =
  | 'awaiting'
  | 'partly_approved'
  | 'approved'
  | 'executing'
  | 'executed'
  | 'failed'
  | 'rejected'
  | 'dry_run_failed'
  | 'aborted'
  | 'expired';
type ResetKind = 'first' | 'last' | 'decision' | 'decision_excluding_updates';
/**
 * `converges`: the run goes on in the same status, agreeing; `completes`: the run goes on to
 * `executed`, its effect applied once; `aborted`: refused or terminated, the action aborted;
 * `final`: refused, the action's final status unchanged.
 */
type Outcome = 'converges' | 'completes' | 'aborted' | 'final';

const ALL_FINAL = {
  first: 'final',
  last: 'final',
  decision: 'final',
  decision_excluding_updates: 'final',
} as const;
const MATRIX: Record<Status, Record<ResetKind, Outcome>> = {
  awaiting: {
    first: 'converges',
    last: 'converges',
    decision: 'converges',
    decision_excluding_updates: 'converges',
  },
  partly_approved: {
    first: 'aborted',
    last: 'converges',
    decision: 'converges',
    decision_excluding_updates: 'aborted',
  },
  approved: {
    first: 'aborted',
    last: 'converges',
    decision: 'converges',
    decision_excluding_updates: 'aborted',
  },
  executing: {
    first: 'aborted',
    last: 'completes',
    decision: 'completes',
    decision_excluding_updates: 'aborted',
  },
  executed: ALL_FINAL,
  failed: ALL_FINAL,
  rejected: ALL_FINAL,
  dry_run_failed: ALL_FINAL,
  aborted: ALL_FINAL,
  // Last: its actions are made at the start and take the shortest window (60 s) to expire.
  expired: ALL_FINAL,
};

const receiver = new WebhookReceiver();
let receiverUrl: string;
let app: TestApp;
let worker: TestWorker;
let ada: TestKey;
let ben: TestKey;
let cat: TestKey;
/** Actions left to expire, one per reset kind, made at the start (the window is 60 s at least). */
let expiring: Promise<string[]>;
beforeAll(async () => {
  receiverUrl = await receiver.start();
  app = await startTestApp('reset-matrix', {
    env: { SERVICE_MONITOR_INTERVAL_MS: '300', WEBHOOK_ALLOWLIST: `${receiverUrl}/` },
  });
  worker = await startTestWorker(app.deps);
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [ada, ben, cat] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
    createTestKey(app, strategic),
  ]);
  expiring = Promise.all(
    Object.keys(ALL_FINAL).map(async () => (await propose({ expires_in_seconds: 60 })).id),
  );
  expiring.catch(() => undefined); // awaited by the expired rows
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
const ledgerOf = (id: string) => ledgerOfAction(app, ben, id);
const decide = (key: TestKey, id: string, decision: 'approve' | 'reject' | 'execute') =>
  call(app.url, 'POST', `/v1/external-actions/${id}/${decision}`, {
    key: key.apiKey,
    body: { reason: decision },
  });
const decided = async (key: TestKey, id: string, decision: 'approve' | 'reject' | 'execute') =>
  expect((await decide(key, id, decision)).status).toBe(200);
const handleOf = async (id: string) =>
  (await app.deps.temporal.getClient()).workflow.getHandle(`action-${id}`);
const cli = (args: string[]) => temporalCliOk(app, args);
const closed = (id: string) =>
  eventually(
    async () => (await (await handleOf(id)).describe()).status.name,
    (name) => name !== 'RUNNING',
    70_000,
  );

/** Ada's proposal: a world change on a new object, or (`webhook`) a POST to the receiver. */
async function propose(
  bounds: Record<string, unknown> = {},
  options: { webhook?: boolean; patch?: Record<string, unknown> } = {},
): Promise<{ id: string; objectId: string | null }> {
  const object = options.webhook ? null : await seedObject(app);
  const body = object
    ? {
        action_kind: 'world.update_object',
        target: { world_object_ref: object._id },
        parameters: { patch: options.patch ?? { status: 'published' } },
        bounds: { allowed_fields: ['status'], ...bounds },
      }
    : {
        action_kind: 'webhook.post',
        target: { url: `${receiverUrl}/hook` },
        parameters: { body: { event: 'deploy' } },
        bounds,
      };
  const res = await call<{ payload: { action_id: string } }>(
    app.url,
    'POST',
    '/v1/external-actions/propose',
    { key: ada.apiKey, body },
  );
  expect(res.status).toBe(201);
  return { id: res.body.payload.action_id, objectId: object?._id ?? null };
}

/** An action brought to `status`. */
async function actionIn(status: Status): Promise<{ id: string; objectId: string | null }> {
  if (status === 'expired') {
    const id = (await expiring).pop()!;
    await eventually(
      () => actionStatus(id),
      (now) => now === 'expired',
      70_000,
    );
    await closed(id);
    return { id, objectId: null };
  }
  if (status === 'executing') {
    const action = await propose({}, { webhook: true });
    await decided(ben, action.id, 'approve');
    // The receiver holds the POST while the reset happens.
    receiver.delayMs = 3000;
    const arrived = receiver.arrivals;
    void decide(ben, action.id, 'execute');
    await eventually(
      async () => receiver.arrivals,
      (arrivals) => arrivals > arrived,
    );
    return action;
  }
  const action = await propose(
    { required_approvals: status === 'partly_approved' ? 2 : 1 },
    status === 'dry_run_failed' ? { patch: { owner: 'eve' } } : {},
  );
  const { id } = action;
  if (status === 'rejected') await decided(cat, id, 'reject');
  if (['partly_approved', 'approved', 'executed', 'failed', 'aborted'].includes(status)) {
    await decided(ben, id, 'approve');
  }
  // The world moved since the approval: its execution fails (plan_drift).
  if (status === 'failed') {
    await storedIn(app.deps.db).worldObjects.updateOne(
      { _id: action.objectId! },
      { $set: { 'attributes.status': 'archived' }, $inc: { version: 1 } },
    );
  }
  if (status === 'executed' || status === 'failed') await decided(ben, id, 'execute');
  if (status === 'aborted') {
    await cli(['workflow', 'terminate', '--workflow-id', `action-${id}`, '--reason', 'stop']);
    await eventually(
      () => actionStatus(id),
      (now) => now === 'aborted',
    );
  }
  if (['executed', 'failed', 'rejected', 'dry_run_failed'].includes(status)) await closed(id);
  return action;
}

async function reset(id: string, kind: ResetKind): Promise<void> {
  const how: Record<ResetKind, () => Promise<string[]>> = {
    first: async () => ['--type', 'FirstWorkflowTask'],
    last: async () => ['--type', 'LastWorkflowTask'],
    decision: async () => ['--event-id', await lastUpdateTask(app, `action-${id}`)],
    decision_excluding_updates: async () => [
      ...['--event-id', await lastUpdateTask(app, `action-${id}`)],
      ...['--reapply-exclude', 'Update'],
    ],
  };
  await cli([
    ...['workflow', 'reset', '--workflow-id', `action-${id}`, '--reason', 'matrix reset'],
    ...(await how[kind]()),
  ]);
}

const credited = (ledger: LedgerEntryView[]) =>
  ledger.filter(
    (entry) =>
      (entry.detail['decision'] as { decision?: string } | undefined)?.decision === 'approve',
  ).length;

/**
 * Where the reset has played out: the workflow closed, or running with the ledger's status
 * and approvals (and the api showing the ledger's status either way). An outcome that ends
 * the run (`aborted`, `final`) is waited for until the run has closed: the watcher that
 * refuses a reset's run acts on its own tick, later on a busy machine, and the run agrees
 * with the ledger until then. A query that times out (a busy worker) is read again.
 */
async function settled(id: string, outcome: Outcome) {
  const endsTheRun = outcome === 'aborted' || outcome === 'final';
  return eventually(
    async () => {
      const handle = await handleOf(id);
      const described = await handle.describe();
      const ledger = await ledgerOf(id);
      const newest = ledger[ledger.length - 1];
      const running = described.status.name === 'RUNNING';
      const state: ActionState | null = running
        ? await handle.query(actionStateQuery).catch(() => null)
        : null;
      return { running, state, ledger, newest, api: await actionStatus(id) };
    },
    ({ running, state, ledger, newest, api }) =>
      api === newest.status &&
      newest.status !== 'executing' &&
      (endsTheRun
        ? !running
        : !running ||
          (state !== null &&
            state.status === newest.status &&
            state.approvals.length === credited(ledger))),
    30_000,
  );
}

const ORDER = Object.keys(MATRIX) as Status[];
const CASES = ORDER.flatMap((status) =>
  (Object.keys(MATRIX[status]) as ResetKind[]).map(
    (kind) => [status, kind, MATRIX[status][kind]] as const,
  ),
);

describe('the reset matrix', () => {
  it.each(CASES)(
    '%s, reset to %s: %s',
    async (status, kind, outcome) => {
      const { id, objectId } = await actionIn(status);
      const versionOf = async () =>
        objectId ? (await app.deps.repos.worldObjects.findById(objectId))!.version : 0;
      const before = await ledgerOf(id);
      const statusBefore = before[before.length - 1].status;
      const versionBefore = await versionOf();
      const appliedBefore = receiver.applied.filter((key) => key === id).length;
      await reset(id, kind);
      // Give the watcher and the new run a moment to act before judging what settled.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const end = await settled(id, outcome);
      receiver.delayMs = 0;
      const events = end.ledger.map((entry) => entry.event);
      if (outcome === 'converges') {
        expect(end.running).toBe(true);
        expect(end.newest.status).toBe(statusBefore);
        expect(events).not.toContain('run_refused');
      } else if (outcome === 'completes') {
        expect(end.newest.status).toBe('executed');
        expect(events).not.toContain('run_refused');
      } else if (outcome === 'aborted') {
        expect(end.newest.status).toBe('aborted');
        expect(end.running).toBe(false);
      } else {
        expect(end.newest.status).toBe(statusBefore);
        expect(end.running).toBe(false);
        // Nothing was recorded as if the action were open again.
        const after = events.slice(before.length);
        expect(after.every((event) => event === 'run_refused')).toBe(true);
      }
      // Nothing happened that the ledger does not say: a world change only with `executed`
      // newly in it, a webhook applied at most once (its Idempotency-Key is the action id).
      const executedNow = events.includes('executed') && statusBefore !== 'executed';
      expect(await versionOf()).toBe(versionBefore + (objectId && executedNow ? 1 : 0));
      const applied = await eventually(
        async () => receiver.applied.filter((key) => key === id).length,
        (count) => !executedNow || count > 0,
      );
      expect(applied).toBeLessThanOrEqual(1);
      if (status !== 'executing') expect(applied).toBe(appliedBefore);
    },
    90_000,
  );
});
