import { createHash } from 'node:crypto';
import { createScenarioActivities } from '../../src/activities/scenarios.activities';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Scenarios (docs/scenarios.md): each drives the live api end to end, under
// its own context and principals, and is judged against a known outcome.
interface Run {
  run_id: string;
  scenario: string;
  status: string;
  shared_context_id: string;
  workflow_id: string;
  checks: { name: string; expected: unknown; observed: unknown; passed: boolean }[];
  observations: Record<string, unknown>;
  report: { json: string; markdown: string; sha256: string } | null;
  error: string | null;
}

let app: TestApp;
let worker: TestWorker;
let key: TestKey;
beforeAll(async () => {
  app = await startTestApp('scenarios');
  worker = await startTestWorker(app.deps);
  key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

/** Runs a scenario and waits for its verdict (the route answers 202 past 10 s). */
async function run(scenario: string, params?: Record<string, unknown>): Promise<Run> {
  const res = await call<{ payload: Run }>(app.url, 'POST', '/v1/scenarios/run', {
    key: key.apiKey,
    body: { scenario, ...(params ? { params } : {}) },
  });
  expect([res.status, res.status < 300 ? '' : res.text]).toEqual([
    res.status === 202 ? 202 : 200,
    '',
  ]);
  let current = res.body.payload;
  const deadline = Date.now() + 120_000;
  while (current.status === 'running' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const list = await call<{ payload: { items: { newest_runs: Run[] }[] } }>(
      app.url,
      'GET',
      '/v1/scenarios',
      { key: key.apiKey },
    );
    current =
      list.body.payload.items
        .flatMap((item) => item.newest_runs)
        .find((r) => r.run_id === current.run_id) ?? current;
  }
  return current;
}

const bytesOf = async (path: string) => {
  const artifact = await app.deps.repos.artifacts.findByPath(path);
  return (await app.deps.repos.artifacts.content(artifact!))!;
};

const expectPassed = (result: Run) => {
  const failed = result.checks.filter((check) => !check.passed);
  expect({ status: result.status, error: result.error, failed }).toEqual({
    status: 'passed',
    error: null,
    failed: [],
  });
};

describe('scenarios', () => {
  it('lists the five scenarios with their parameter schemas and expectations', async () => {
    const res = await call<{
      payload: { items: { name: string; params: { properties: object }; expected: string }[] };
    }>(app.url, 'GET', '/v1/scenarios', { key: key.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.payload.items.map((item) => item.name)).toEqual([
      'glider-transit',
      'r-pentomino-methuselah',
      'approval-drill',
      'ipd-classic',
      'ingest-reconcile',
    ]);
    for (const item of res.body.payload.items) {
      expect(item.params.properties).toHaveProperty('expect');
      expect(item.expected.length).toBeGreaterThan(20);
    }
  });

  it('glider-transit: a glider crosses the torus and comes back cell for cell', async () => {
    const result = await run('glider-transit', { side: 16 });
    expectPassed(result);
    expect(result.observations).toMatchObject({ final_tick: 64, back_at_start: true });
    expect(result.workflow_id).toBe(`scenario-${result.run_id}`);
    // The report is stored, and its sha256 is that of its bytes.
    const json = await bytesOf(result.report!.json);
    expect(createHash('sha256').update(json).digest('hex')).toBe(result.report!.sha256);
    expect(JSON.parse(json.toString('utf8'))).toMatchObject({ status: 'passed' });
    const markdown = (await bytesOf(result.report!.markdown)).toString('utf8');
    expect(markdown).toContain('# Scenario `glider-transit`: passed');
    expect(markdown).toContain('| back_at_start | `true` | `true` | passed |');
    // A retried report step writes the same bytes to the same paths (no conflict).
    const stored = (await app.deps.repos.scenarioRuns.findById(result.run_id))!;
    const activities = createScenarioActivities({
      repos: app.deps.repos,
      keyPepper: app.deps.config.keyPepper,
    });
    const again = await activities.reportScenario({
      record: { ...stored, status: 'running', checks: [], report: null },
      judged_at: stored.completed_at!,
    });
    expect(again.report).toEqual(result.report);
  });

  it('r-pentomino-methuselah: settles at generation 1103 with 116 cells', async () => {
    const result = await run('r-pentomino-methuselah');
    expectPassed(result);
    expect(result.observations).toMatchObject({ initial_population: 5, final_population: 116 });
  });

  it('approval-drill: two principals of its own; the rules hold; the update lands once', async () => {
    const result = await run('approval-drill');
    expectPassed(result);
    const actionId = result.observations['action_id'] as string;
    const action = await app.deps.repos.externalActions.findById(actionId);
    expect(action).toMatchObject({
      status: 'executed',
      shared_context_id: result.shared_context_id,
    });
    // The run's keys were revoked when it ended.
    const keys = await app.deps.db
      .collection('api_keys')
      .find({ label: { $regex: `^scenario:${result.run_id}` } })
      .toArray();
    expect(keys.map((k) => k['status'] as string)).toEqual(['revoked', 'revoked']);
    // Its context exists, and its workflow summary finds the scenario's own workflow.
    const summary = await call<{ payload: { by_type: { workflow_type: string }[] } }>(
      app.url,
      'GET',
      `/v1/shared-contexts/${encodeURIComponent(result.shared_context_id)}/workflow-summary`,
      { key: key.apiKey },
    );
    expect(summary.status).toBe(200);
    expect(JSON.stringify(summary.body.payload)).toContain('scenarioWorkflow');
  });

  it('ipd-classic: the totals follow from the payoffs; a false expectation fails', async () => {
    expectPassed(await run('ipd-classic', { turns: 50 }));
    const rigged = await run('ipd-classic', { turns: 50, expect: { winner: 'tit_for_tat' } });
    expect(rigged.status).toBe('failed');
    expect(rigged.checks.filter((check) => !check.passed)).toEqual([
      { name: 'winner', expected: 'tit_for_tat', observed: 'always_defect', passed: false },
    ]);
    const markdown = (await bytesOf(rigged.report!.markdown)).toString('utf8');
    expect(markdown).toContain('| winner | `"tit_for_tat"` | `"always_defect"` | **failed** |');
  });

  it('ingest-reconcile: applied, stale, duplicate and unmatched as the rules say', async () => {
    expectPassed(await run('ingest-reconcile'));
  });

  it('answers 422 naming a bad parameter, and for an unknown scenario', async () => {
    const bad = await call<{ detail: { loc: unknown[]; type: string }[] }>(
      app.url,
      'POST',
      '/v1/scenarios/run',
      { key: key.apiKey, body: { scenario: 'glider-transit', params: { side: 4, colour: 1 } } },
    );
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((issue) => issue.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'params', 'side'],
        ['body', 'params', 'colour'],
      ]),
    );
    const unknown = await call(app.url, 'POST', '/v1/scenarios/run', {
      key: key.apiKey,
      body: { scenario: 'moon-landing' },
    });
    expect(unknown.status).toBe(422);
  });
});
