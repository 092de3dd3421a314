import type { WorkflowHandle } from '@temporalio/client';
import { seedObject } from '../helpers/actions';
import { eventually } from '../helpers/eventually';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// What a person sees of an action in the Temporal Web UI, read the way the UI reads it
// (describe: summary, details, search attributes; the `__temporal_workflow_metadata` query:
// current details), compared with the api's answer after every transition (issue 18).

interface ActionView {
  action_id: string;
  status: string;
  approvals: { principal_id: string }[];
  bounds: { required_approvals: number };
  expires_at: string;
  executable_at?: string | null;
  dry_run: { plan_digest: string } | null;
  workflow_id: string;
  workflow_url: string;
  rule: { rule_id: string } | null;
}

let app: TestApp;
let worker: TestWorker;
let ada: TestKey;
let ben: TestKey;
let cy: TestKey;
const NAMES: Record<string, string> = {};

beforeAll(async () => {
  app = await startTestApp('workflow-inspection');
  // Workflows and activities only: the deployment test adds the compute queue's worker itself.
  worker = await startTestWorker(app.deps, undefined, { compute: false });
  ada = await createTestKey(app, {
    entitlement: 'strategic',
    accessLayer: 2,
    name: 'Ada Lovelace',
  });
  ben = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2, name: 'Ben Okri' });
  cy = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2, name: 'Cy Twombly' });
  NAMES[ada.principalId] = 'Ada Lovelace';
  NAMES[ben.principalId] = 'Ben Okri';
  NAMES[cy.principalId] = 'Cy Twombly';
}, 60_000);
afterAll(async () => {
  await worker?.stop();
  await app?.close();
});

const getAction = async (id: string, key: TestKey) => {
  const res = await call<{ payload: ActionView }>(app.url, 'GET', `/v1/external-actions/${id}`, {
    key: key.apiKey,
  });
  expect(res.status).toBe(200);
  return res.body.payload;
};

/** What the Web UI shows: summary, details, current details and search attributes. */
async function inspect(handle: WorkflowHandle) {
  const description = await handle.describe();
  const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  const attributes = Object.fromEntries(
    description.typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value]),
  );
  return {
    summary: await description.staticSummary(),
    details: await description.staticDetails(),
    current: metadata.currentDetails ?? '',
    attributes,
  };
}

/** The current details agree with the api's answer: stage, approvals and who, window. */
async function expectAgreement(handle: WorkflowHandle, view: ActionView) {
  const seen = await inspect(handle);
  const required = view.bounds.required_approvals;
  expect(seen.current).toContain(`**Stage:** ${view.status}`);
  expect(seen.current).toContain(`**Approvals:** ${view.approvals.length} of ${required}`);
  for (const approval of view.approvals)
    expect(seen.current).toContain(NAMES[approval.principal_id]);
  if (view.approvals.length === 0) expect(seen.current).toContain('none yet');
  expect(seen.current).toContain(`**Window ends:** ${view.expires_at}`);
  if (view.executable_at)
    expect(seen.current).toContain(`**Executable at:** ${view.executable_at}`);
  if (view.dry_run) expect(seen.current).toContain(view.dry_run.plan_digest);
  expect(seen.attributes['ActionStatus']).toBe(view.status);
  expect(seen.attributes['ApprovalsRemaining']).toBe(Math.max(0, required - view.approvals.length));
  return seen;
}

describe('an action in the Temporal Web UI', () => {
  it('explains itself at every transition: summary, details, current details, search attributes', async () => {
    const object = await seedObject(app, { name: 'Hall lamp', attributes: { status: 'draft' } });
    const rule = await call<{ payload: { rule_id: string } }>(
      app.url,
      'POST',
      '/v1/admin/approval-rules/create',
      {
        key: app.adminKey,
        body: {
          name: 'two eyes on the lamp',
          match: { target_prefix: object._id },
          required_approvals: 2,
          wait_seconds: 2,
        },
      },
    );
    expect(rule.status).toBe(201);
    const proposed = await call<{ payload: ActionView }>(
      app.url,
      'POST',
      '/v1/external-actions/propose',
      {
        key: ada.apiKey,
        body: {
          action_kind: 'world.update_object',
          target: { world_object_ref: object._id },
          parameters: { patch: { status: 'reviewed' } },
          bounds: { allowed_fields: ['status'] },
          reason: 'mark the lamp reviewed',
        },
      },
    );
    expect(proposed.status).toBe(201);
    const actionId = proposed.body.payload.action_id;
    const client = await app.deps.temporal.getClient();
    const handle = client.workflow.getHandle(`action-${actionId}`);

    // Proposed, dry-run, awaiting approval: the list view's summary names everything.
    let view = await getAction(actionId, ada);
    expect(view.status).toBe('awaiting_approval');
    expect(view.workflow_url).toBe(
      `${app.deps.config.temporalUiUrl}/namespaces/default/workflows/action-${actionId}`,
    );
    let seen = await expectAgreement(handle, view);
    expect(seen.summary).toBe(
      `world.update_object → Hall lamp (${object._id}) · by Ada Lovelace · 2 approvals · mark the lamp reviewed`,
    );
    expect(Buffer.byteLength(seen.summary!)).toBeLessThanOrEqual(200);
    expect(seen.details).toContain(`Hall lamp (\`${object._id}\`)`);
    expect(seen.details).toContain(`Ada Lovelace (\`${ada.principalId}\`)`);
    expect(seen.details).toContain('mark the lamp reviewed');
    expect(seen.details).toContain(rule.body.payload.rule_id);
    expect(seen.details).toContain(view.dry_run!.plan_digest);
    expect(seen.details).toContain('- **Change:** `status`: `"draft"` → `"reviewed"`\n');
    expect(seen.details).toContain(
      `${app.deps.config.publicBaseUrl}/v1/external-actions/${actionId}`,
    );
    expect(seen.details).toContain(`${app.deps.config.publicBaseUrl}/console)`);
    expect(seen.details).toContain(`, then the action \`${actionId}\``);
    expect(seen.current).toContain('2 more approvals');
    expect(seen.attributes).toMatchObject({
      ActionKind: 'world.update_object',
      ProposedBy: ada.principalId,
      ApprovalRuleId: rule.body.payload.rule_id,
      WorldObjectId: object._id,
    });

    // The first of two approvals: 1/2, by Ben, one more to go.
    const decide = async (key: TestKey, verb: string, body: Record<string, unknown> = {}) => {
      const res = await call<{ payload: ActionView }>(
        app.url,
        'POST',
        `/v1/external-actions/${actionId}/${verb}`,
        { key: key.apiKey, body },
      );
      expect(`${res.status} ${res.status === 200 ? '' : res.text}`).toBe('200 ');
      return res.body.payload;
    };
    await decide(ben, 'approve', { reason: 'looks right' });
    view = await getAction(actionId, ada);
    expect(view.approvals).toHaveLength(1);
    seen = await expectAgreement(handle, view);
    expect(seen.current).toContain('1 more approval from');

    // The second: approved, the rule's wait, then a call to execute.
    await decide(cy, 'approve', { reason: 'fine' });
    view = await getAction(actionId, ada);
    expect(view.status).toBe('approved');
    seen = await expectAgreement(handle, view);
    expect(seen.current).toContain("the rule's wait to end at");

    // The wait's timer fires; the details then say what comes next: a call to execute.
    for (
      let i = 0;
      i < 50 && !(await inspect(handle)).current.includes('**Next:** a call to execute');
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    seen = await expectAgreement(handle, view);
    expect(seen.current).toContain(
      `**Next:** a call to execute (POST /v1/external-actions/${actionId}/execute)`,
    );
    await decide(ben, 'execute');
    view = await getAction(actionId, ada);
    expect(view.status).toBe('executed');
    seen = await expectAgreement(handle, view);
    expect(seen.current).toContain('nothing: it ended executed');

    // The history reads as a story: each activity and timer says what it is for.
    const history = await handle.fetchHistory();
    const summaries: string[] = [];
    for (const event of history.events ?? []) {
      const payload = event.userMetadata?.summary;
      if (payload?.data) summaries.push(Buffer.from(payload.data).toString('utf8'));
    }
    const story = summaries.join('\n');
    expect(story).toContain('record approval by Ben Okri (1/2)');
    expect(story).toContain('record approval by Cy Twombly (2/2): approved');
    expect(story).toMatch(
      /wait for 2 approval\(s\) and the execution until the window ends at \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/,
    );
    expect(story).toContain("wait for the approval rule's wait to end at");
    expect(story).toContain(
      `record executing, apply world.update_object → Hall lamp (${object._id}), record the outcome`,
    );
  }, 60_000);
});

describe("an action's change in the Temporal Web UI", () => {
  it('is inline code on one line: a field name or value cannot add lines, links or emphasis', async () => {
    const object = await seedObject(app, { name: 'Desk lamp', attributes: { note: 'plain' } });
    const field = 'note\n- **Approved by:** `everyone`';
    const value = 'x`\n- **Rule in force:** none [click](https://example.invalid) *now*';
    const proposed = await call<{ payload: ActionView }>(
      app.url,
      'POST',
      '/v1/external-actions/propose',
      {
        key: ada.apiKey,
        body: {
          action_kind: 'world.update_object',
          target: { world_object_ref: object._id },
          parameters: { patch: { [field]: value } },
          bounds: { allowed_fields: [field] },
        },
      },
    );
    expect(proposed.status).toBe(201);
    const client = await app.deps.temporal.getClient();
    const { details } = await inspect(
      client.workflow.getHandle(`action-${proposed.body.payload.action_id}`),
    );
    const lines = details!.split('\n');
    expect(lines.filter((line) => line.startsWith('- **Change:**'))).toEqual([
      "- **Change:** `note - **Approved by:** 'everyone'`: `null` → " +
        '`"x\'\\n- **Rule in force:** none [click](https://example.invalid) *now*"`',
    ]);
    expect(lines.filter((line) => /^- \*\*(Approved by|Rule in force):/.test(line))).toEqual([
      '- **Rule in force:** _none matched_',
    ]);

    // A notification's change is its channel and message, the same way.
    const notify = await call<{ payload: ActionView }>(
      app.url,
      'POST',
      '/v1/external-actions/propose',
      {
        key: ada.apiKey,
        body: {
          action_kind: 'notify',
          target: {},
          parameters: { channel: 'ops', message: 'deploy at 5\n**now**' },
          bounds: {},
        },
      },
    );
    expect(notify.status).toBe(201);
    const notified = await inspect(
      client.workflow.getHandle(`action-${notify.body.payload.action_id}`),
    );
    expect(notified.details).toContain(
      '- **Change:** notify channel `ops`: `"deploy at 5\\n**now**"`\n',
    );
  });
});

interface DeploymentView {
  deployment_id: string;
  status: string;
  stage: string;
  progress: { tick: number; ticks_total: number };
  workflow_id: string;
  workflow_url: string;
  spec: { envelope: string };
}

const STAGES = ['validating', 'compiling', 'deploying', 'observing', 'assaying', 'ready'];

describe('a deployment in the Temporal Web UI', () => {
  it('shows its stage and progress as the api does, at every stage it is seen in', async () => {
    const started = await call<{ payload: DeploymentView }>(
      app.url,
      'POST',
      '/v1/substrates/deploy',
      {
        key: ada.apiKey,
        body: {
          spec: {
            scaffold: 'life-lattice',
            params: { width: 16, height: 16, rule: 'B3/S23', ticks: 40, pattern: 'glider' },
          },
        },
      },
    );
    expect(started.status).toBe(201);
    const id = started.body.payload.deployment_id;
    expect(started.body.payload.workflow_url).toBe(
      `${app.deps.config.temporalUiUrl}/namespaces/default/workflows/deployment-${id}`,
    );
    const client = await app.deps.temporal.getClient();
    const handle = client.workflow.getHandle(`deployment-${id}`);
    const read = async () =>
      (
        await call<{ payload: DeploymentView }>(
          app.url,
          'GET',
          `/v1/substrates/deployments/${id}`,
          { key: ada.apiKey },
        )
      ).body.payload;
    const agrees = (current: string, view: DeploymentView) =>
      current.includes(`**Stage:** ${view.stage}`) &&
      current.includes(`**Progress:** tick ${view.progress.tick} of ${view.progress.ticks_total}`);
    // Where a stage or tick stands in the deployment's order (stage first, then tick).
    const rank = (stage: string, tick: number) => {
      expect(STAGES).toContain(stage);
      return STAGES.indexOf(stage) * 1_000_000 + tick;
    };
    const shown = (current: string) =>
      rank(
        /\*\*Stage:\*\* (\w+)/.exec(current)?.[1] ?? 'none',
        Number(/\*\*Progress:\*\* tick (\d+)/.exec(current)?.[1]),
      );

    // No worker serves the compute queue yet: the deployment holds at deploying, tick 0, where
    // the details and the api must agree exactly.
    const stagesSeen = new Set<string>();
    let view = await eventually(read, (v) => v.stage === 'deploying');
    expect(view.progress.tick).toBe(0);
    expect(agrees((await inspect(handle)).current, view)).toBe(true);
    stagesSeen.add(view.stage);

    // Running: the workflow sets its details before an activity records each change, so the
    // api never shows a stage or tick the details have not shown; when the details hold still
    // across a read of the api and show the same point, they agree.
    const compute = await startTestWorker(app.deps, undefined, { compute: true });
    try {
      for (let i = 0; i < 300 && view.status === 'running'; i++) {
        const before = (await inspect(handle)).current;
        view = await read();
        const after = (await inspect(handle)).current;
        expect(rank(view.stage, view.progress.tick)).toBeLessThanOrEqual(shown(after));
        if (before === after && shown(after) === rank(view.stage, view.progress.tick)) {
          expect(agrees(after, view)).toBe(true);
          stagesSeen.add(view.stage);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await compute.stop();
    }
    expect(stagesSeen).toContain('deploying');
    expect(view.status).toBe('ready');
    const seen = await inspect(handle);
    expect(agrees(seen.current, view)).toBe(true);
    expect(seen.current).toContain('**Next:** nothing: ready');
    expect(seen.summary).toContain(
      `deploy life-lattice 16x16 B3/S23, 40 ticks · ${id} · by Ada Lovelace`,
    );
    expect(seen.details).toContain(
      `${app.deps.config.publicBaseUrl}/v1/substrates/deployments/${id}`,
    );
    expect(seen.attributes).toMatchObject({
      DeploymentStage: 'ready',
      DeploymentEnvelope: view.spec.envelope,
      ProposedBy: ada.principalId,
    });
    const history = await handle.fetchHistory();
    const story = (history.events ?? [])
      .map((event) => event.userMetadata?.summary?.data)
      .filter((data): data is Uint8Array => Boolean(data))
      .map((data) => Buffer.from(data).toString('utf8'))
      .join('\n');
    expect(story).toContain('validate the spec against envelope');
    expect(story).toMatch(/compute ticks 0→\d+ of 40/);
    expect(story).toContain('wall-time bound of the deploying stage');
    expect(story).toContain('record ready, tick 40/40');
  }, 60_000);
});
