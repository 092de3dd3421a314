import { actionStateQuery, type ActionState } from '../../src/workflows/shared';
import { seedObject } from '../helpers/actions';
import { eventually } from '../helpers/eventually';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { temporalCliOk } from '../helpers/temporal-cli';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// The reset matrix of docs/actions.md, "Resets": every reset kind of the `temporal` CLI
// against an action in each status. Whatever the row, once the reset has played out the api,
// the ledger and the workflow agree, and nothing happens that the ledger did not record;
// each cell's outcome is the table's.

interface LedgerEntry {
  seq: number;
  event: string;
  status: string;
  detail: Record<string, unknown>;
}

type Status = 'awaiting' | 'partly_approved' | 'approved' | 'executed' | 'rejected' | 'aborted';
type ResetKind = 'first' | 'last' | 'decision' | 'decision_excluding_updates';
/** `converges`: the run goes on, agreeing; `aborted`: refused, the action aborted; `final`: refused, unchanged. */
type Outcome = 'converges' | 'aborted' | 'final';

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
  executed: {
    first: 'final',
    last: 'final',
    decision: 'final',
    decision_excluding_updates: 'final',
  },
  rejected: {
    first: 'final',
    last: 'final',
    decision: 'final',
    decision_excluding_updates: 'final',
  },
  aborted: {
    first: 'final',
    last: 'final',
    decision: 'final',
    decision_excluding_updates: 'final',
  },
};

let app: TestApp;
let worker: TestWorker;
let ada: TestKey;
let ben: TestKey;
let cat: TestKey;
beforeAll(async () => {
  app = await startTestApp('reset-matrix', { env: { SERVICE_MONITOR_INTERVAL_MS: '300' } });
  worker = await startTestWorker(app.deps);
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [ada, ben, cat] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
    createTestKey(app, strategic),
  ]);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
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
const ledgerOf = async (id: string) => {
  const res = await call<{ payload: { items: LedgerEntry[] } }>(
    app.url,
    'GET',
    `/v1/external-actions/history?action_id=${id}&limit=100`,
    { key: ben.apiKey },
  );
  expect(res.status).toBe(200);
  return res.body.payload.items.sort((a, b) => a.seq - b.seq);
};
const decide = async (key: TestKey, id: string, decision: 'approve' | 'reject' | 'execute') => {
  const res = await call(app.url, 'POST', `/v1/external-actions/${id}/${decision}`, {
    key: key.apiKey,
    body: { reason: decision },
  });
  expect(res.status).toBe(200);
};
const handleOf = async (id: string) =>
  (await app.deps.temporal.getClient()).workflow.getHandle(`action-${id}`);
const cli = (args: string[]) => temporalCliOk(app, args);

/** An action on a new object of its own, brought to `status`. */
async function actionIn(status: Status): Promise<{ id: string; objectId: string }> {
  const object = await seedObject(app);
  const res = await call<{ payload: { action_id: string } }>(
    app.url,
    'POST',
    '/v1/external-actions/propose',
    {
      key: ada.apiKey,
      body: {
        action_kind: 'world.update_object',
        target: { world_object_ref: object._id },
        parameters: { patch: { status: 'published' } },
        bounds: {
          allowed_fields: ['status'],
          required_approvals: status === 'partly_approved' ? 2 : 1,
        },
      },
    },
  );
  expect(res.status).toBe(201);
  const id = res.body.payload.action_id;
  if (status === 'rejected') await decide(cat, id, 'reject');
  if (['partly_approved', 'approved', 'executed', 'aborted'].includes(status)) {
    await decide(ben, id, 'approve');
  }
  if (status === 'executed') await decide(ben, id, 'execute');
  if (status === 'aborted') {
    await cli(['workflow', 'terminate', '--workflow-id', `action-${id}`, '--reason', 'stop']);
    await eventually(
      () => actionStatus(id),
      (now) => now === 'aborted',
    );
  }
  if (status === 'executed' || status === 'rejected') {
    await eventually(
      async () => (await (await handleOf(id)).describe()).status.name,
      (name) => name === 'COMPLETED',
    );
  }
  return { id, objectId: object._id };
}

/** The workflow task that took the last decision (or the first task, before any). */
async function decisionTask(id: string): Promise<string> {
  const shown = await cli([
    'workflow',
    'show',
    '--workflow-id',
    `action-${id}`,
    '--output',
    'json',
  ]);
  const events = (JSON.parse(shown) as { events: { eventId: string; eventType: string }[] }).events;
  const completed = (event: { eventType: string }) =>
    event.eventType.endsWith('WORKFLOW_TASK_COMPLETED');
  const accepted = events.findLastIndex((event) => event.eventType.endsWith('UPDATE_ACCEPTED'));
  if (accepted < 0) return events.find(completed)!.eventId;
  return events.slice(0, accepted).findLast(completed)!.eventId;
}

async function reset(id: string, kind: ResetKind): Promise<void> {
  const how: Record<ResetKind, () => Promise<string[]>> = {
    first: async () => ['--type', 'FirstWorkflowTask'],
    last: async () => ['--type', 'LastWorkflowTask'],
    decision: async () => ['--event-id', await decisionTask(id)],
    decision_excluding_updates: async () => [
      ...['--event-id', await decisionTask(id)],
      ...['--reapply-exclude', 'Update'],
    ],
  };
  await cli([
    ...['workflow', 'reset', '--workflow-id', `action-${id}`, '--reason', 'matrix reset'],
    ...(await how[kind]()),
  ]);
}

const credited = (ledger: LedgerEntry[]) =>
  ledger.filter(
    (entry) =>
      (entry.detail['decision'] as { decision?: string } | undefined)?.decision === 'approve',
  ).length;

/**
 * Where the reset has played out: the workflow closed, or running with the ledger's status
 * and approvals (and the api showing the ledger's status either way).
 */
async function settled(id: string) {
  return eventually(
    async () => {
      const handle = await handleOf(id);
      const described = await handle.describe();
      const ledger = await ledgerOf(id);
      const newest = ledger[ledger.length - 1];
      const running = described.status.name === 'RUNNING';
      const state: ActionState | null = running ? await handle.query(actionStateQuery) : null;
      return { running, state, ledger, newest, api: await actionStatus(id) };
    },
    ({ running, state, ledger, newest, api }) =>
      api === newest.status &&
      (!running ||
        (state!.status === newest.status && state!.approvals.length === credited(ledger))),
    20_000,
  );
}

const CASES = (Object.keys(MATRIX) as Status[]).flatMap((status) =>
  (Object.keys(MATRIX[status]) as ResetKind[]).map(
    (kind) => [status, kind, MATRIX[status][kind]] as const,
  ),
);

describe('the reset matrix', () => {
  it.each(CASES)('%s, reset to %s: %s', async (status, kind, outcome) => {
    const { id, objectId } = await actionIn(status);
    const before = await ledgerOf(id);
    const statusBefore = before[before.length - 1].status;
    await reset(id, kind);
    // Give the watcher and the new run a moment to act before judging what settled.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const end = await settled(id);
    if (outcome === 'converges') {
      expect(end.running).toBe(true);
      expect(end.newest.status).toBe(statusBefore);
      expect(end.ledger.map((entry) => entry.event)).not.toContain('run_refused');
    } else if (outcome === 'aborted') {
      expect(end.newest.status).toBe('aborted');
      expect(end.running).toBe(false);
    } else {
      expect(end.newest.status).toBe(statusBefore);
      expect(end.running).toBe(false);
      // Nothing was recorded as if the action were open again.
      const after = end.ledger.slice(before.length).map((entry) => entry.event);
      expect(after.every((event) => event === 'run_refused')).toBe(true);
    }
    // Nothing happened that the ledger does not say.
    const executed = end.ledger.some((entry) => entry.event === 'executed');
    const object = await app.deps.repos.worldObjects.findById(objectId);
    expect(object?.version).toBe(executed ? 2 : 1);
  });
});
