import { WORKFLOW_GRACE_MS } from '../../src/domain/proofs/workflow-check';
import { proposeUpdate } from '../helpers/actions';
import { storedIn } from '../helpers/collections';
import { eventually } from '../helpers/eventually';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// `actions_match_workflow` (docs/proofs.md): a stored action that disagrees with its
// workflow in Temporal is flagged, as a database holder's edit makes it (the record's time
// set back past the grace, as such an editor would).

interface CheckResult {
  name: string;
  status: string;
  violations: { record_id: string; problem: string }[];
}

let app: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let approver: TestKey;
beforeAll(async () => {
  app = await startTestApp('proofs-workflow');
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

const check = async (): Promise<CheckResult> => {
  const res = await call<{ payload: { results: CheckResult[] } }>(
    app.url,
    'POST',
    '/v1/proofs/checks',
    { key: approver.apiKey, body: { checks: ['actions_match_workflow'] } },
  );
  expect(res.status).toBe(200);
  return res.body.payload.results[0];
};
const longAgo = () => new Date(Date.now() - WORKFLOW_GRACE_MS - 60_000).toISOString();
const rewrite = (id: string, status: string) =>
  storedIn(app.deps.db).actions.updateOne(
    { _id: id },
    { $set: { status: status as never, updated_at: longAgo() } },
  );

it('passes when every action agrees with its workflow', async () => {
  await proposeUpdate(app, proposer, { patch: { status: 'published' } });
  expect(await check()).toMatchObject({ status: 'passed', violations: [] });
});

it('flags an open action shown final, and a final action shown open', async () => {
  const open = await proposeUpdate(app, proposer, { patch: { status: 'published' } });
  const rejected = await proposeUpdate(app, proposer, { patch: { status: 'published' } });
  const res = await call(app.url, 'POST', `/v1/external-actions/${rejected}/reject`, {
    key: approver.apiKey,
    body: { reason: 'no' },
  });
  expect(res.status).toBe(200);
  await rewrite(open, 'executed');
  await rewrite(rejected, 'awaiting_approval');
  // Temporal's visibility shows the rejected action's workflow closed a moment later.
  const result = await eventually(check, (r) => r.violations.length === 2, 15_000);
  expect(result.status).toBe('failed');
  const problems = Object.fromEntries(result.violations.map((v) => [v.record_id, v.problem]));
  expect(problems[open]).toMatch(/still runs, though the action is executed/);
  expect(problems[rejected]).toMatch(/runs no more, though the action is awaiting_approval/);
});
