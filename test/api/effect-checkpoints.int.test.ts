import { proposeWebhook } from '../helpers/actions';
import type { ActionLedgerEntry } from '../../src/store/external-actions.repo';
import { storedIn } from '../helpers/collections';
import { eventually } from '../helpers/eventually';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { lastUpdateTask, temporalCliOk } from '../helpers/temporal-cli';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';
import { WebhookReceiver } from '../helpers/webhook-receiver';

// The database and Temporal together (docs/actions.md, "What the ledger protects against
// whom"): whoever holds the database cuts an executed action's ledger back to an earlier
// entry, and whoever reaches Temporal resets its workflow to before the execution. The
// ledger alone then agrees with the reset's run; the signed checkpoints, outside the
// database, do not, and the worker reads them before it records or acts: the effect happens
// once, and nothing is written over the cut ledger.

const receiver = new WebhookReceiver();
let app: TestApp;
let worker: TestWorker;
let ada: TestKey;
let ben: TestKey;
let receiverUrl: string;
beforeAll(async () => {
  receiverUrl = await receiver.start();
  // The closed-run watcher ticks every 300 ms here: it sees the refused run's end.
  app = await startTestApp('effect-checkpoints', {
    env: { SERVICE_MONITOR_INTERVAL_MS: '300', WEBHOOK_ALLOWLIST: `${receiverUrl}/` },
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

const db = () => storedIn(app.deps.db);
const ledgerOf = (id: string): Promise<ActionLedgerEntry[]> =>
  db().actionLedger.find({ action_id: id }).sort({ seq: 1 }).toArray();
const statusOf = async (id: string) =>
  (
    await call<{ payload: { status: string } }>(app.url, 'GET', `/v1/external-actions/${id}`, {
      key: ben.apiKey,
    })
  ).body.payload.status;
const handleOf = async (id: string) =>
  (await app.deps.temporal.getClient()).workflow.getHandle(`action-${id}`);
const posted = (id: string) =>
  receiver.calls.filter((c) => c.headers['idempotency-key'] === id && c.status === 200).length;

/** A webhook proposed by ada, approved and executed by ben, its POST delivered. */
async function executedWebhook(): Promise<string> {
  const id = await proposeWebhook(app, ada, `${receiverUrl}/hook`);
  for (const decision of ['approve', 'execute']) {
    const decided = await call(app.url, 'POST', `/v1/external-actions/${id}/${decision}`, {
      key: ben.apiKey,
      body: { reason: decision },
    });
    expect(decided.status).toBe(200);
  }
  await eventually(
    () => statusOf(id),
    (status) => status === 'executed',
  );
  await eventually(
    async () => (await (await handleOf(id)).describe()).status.name,
    (name) => name === 'COMPLETED',
  );
  expect(posted(id)).toBe(1);
  return id;
}

/**
 * What the database holder does: deletes the entries after the one whose event is `keep`,
 * points the action record (seq, head, status) at it, and deletes the action's end record,
 * so the ledger, the projection and the api all agree the action stopped there.
 */
async function cutLedgerTo(id: string, keep: string): Promise<ActionLedgerEntry[]> {
  const entries = await ledgerOf(id);
  const last = entries.find((entry) => entry.event === keep)!;
  const kept = entries.filter((entry) => entry.seq <= last.seq);
  await db().actionLedger.deleteMany({ action_id: id, seq: { $gt: last.seq } });
  await db().actions.updateOne(
    { _id: id },
    { $set: { seq: last.seq, ledger_head: last.digest, status: last.status } },
  );
  await app.deps.db.collection<{ _id: string }>('action_ends').deleteOne({ _id: id });
  expect(await statusOf(id)).toBe(last.status);
  return kept;
}

/** What the Temporal operator does: a reset to the workflow task that took the execute update. */
async function resetToExecute(id: string): Promise<void> {
  await temporalCliOk(app, [
    ...['workflow', 'reset', '--workflow-id', `action-${id}`, '--reason', 'run it again'],
    ...['--event-id', await lastUpdateTask(app, `action-${id}`)],
  ]);
}

describe('a cut ledger and a reset workflow together', () => {
  it.each(['approved', 'executing'])(
    'cut back to %s: the webhook is not sent again, the run is refused, the cut ledger is left as it is',
    async (keep) => {
      const id = await executedWebhook();
      const kept = await cutLedgerTo(id, keep);
      await resetToExecute(id);

      const handle = await handleOf(id);
      const run = await eventually(
        () => handle.describe(),
        (described) => described.status.name !== 'RUNNING',
      );
      // The effect happened once: the receiver had one POST, before the cut.
      expect(posted(id)).toBe(1);
      expect(run.status.name).toBe('FAILED');
      const failure = await handle.result().then(
        () => null,
        (error: { cause?: { message?: string; type?: string } }) => error.cause,
      );
      expect(failure?.type).toBe('RunRefused');
      expect(failure?.message).toMatch(/checkpoint .*seq \d+.* ledger/);

      // Reported as a security event, naming the checkpoint and the ledger's head.
      const reported = await eventually(
        () =>
          db()
            .serviceEvents.find({ kind: 'security.checkpoint_mismatch', 'detail.action_id': id })
            .toArray(),
        (found) => found.length > 0,
      );
      expect(reported[0].detail).toMatchObject({
        action_id: id,
        checkpoint: { seq: expect.any(Number), head: expect.any(String) },
        ledger: { seq: kept[kept.length - 1].seq },
      });
      // The api has reflected the failed run by now; neither writer wrote over the cut.
      await eventually(
        () =>
          db()
            .serviceEvents.find({ kind: 'workflow.failed', 'detail.run_id': run.runId })
            .toArray(),
        (found) => found.length > 0,
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect((await ledgerOf(id)).map((entry) => entry.digest)).toEqual(
        kept.map((entry) => entry.digest),
      );
      expect(posted(id)).toBe(1);
    },
    60_000,
  );
});
