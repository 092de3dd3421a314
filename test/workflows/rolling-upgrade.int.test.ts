import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils';
import type { NormalizedSpec } from '../../src/store/substrate-deployments.repo';
import type { RepairRecord } from '../../src/store/repairs.repo';
import { createSubstrate } from '../../src/domain/substrates/engine';
import { actionWorkflowId } from '../../src/workflows/external-action.contract';
import { repairWorkflowId } from '../../src/workflows/repair.contract';
import {
  deploymentStateQuery,
  type DeploymentProgressState,
} from '../../src/workflows/substrate-deployment.contract';
import { proposeUpdate, seedRecordedObject } from '../helpers/actions';
import { storedIn } from '../helpers/collections';
import { deploymentRecordOf } from '../helpers/deployments';
import { loadStoredHistories, type StoredHistory } from '../helpers/histories';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { replayFailures } from '../helpers/replay';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';
import { bundleWorkflowsWith } from '../helpers/workflow-bundles';
import { UPGRADE_MEMO, UPGRADE_PATCH } from './upgrade/upgrade-patch';

// A rolling upgrade (docs/workflow-versioning.md): workflows started on the current build wait
// for people (or are mid-run) when the worker stops; a worker on the next build, whose change
// is behind `patched`, replays their histories and takes them to their end; workflows
// started after the upgrade take the new branch.
let app: TestApp;
let client: Client;
let proposer: TestKey;
let alice: TestKey;
let bob: TestKey;
let nextBuild: string;
beforeAll(async () => {
  app = await startTestApp('rolling_upgrade');
  client = await app.deps.temporal.getClient();
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [proposer, alice, bob] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
    createTestKey(app, strategic),
  ]);
  nextBuild = await bundleWorkflowsWith(
    join(__dirname, 'upgrade', 'patched-upgrade.interceptor.ts'),
  );
}, 120_000);
afterAll(() => app.close());

/** A decision through the api; 503 while no worker has taken the workflow back yet. */
async function decide(id: string, decision: string, key: TestKey): Promise<string> {
  for (let attempt = 0; ; attempt += 1) {
    const res = await call<{ payload: { status: string } }>(
      app.url,
      'POST',
      `/v1/external-actions/${id}/${decision}`,
      { key: key.apiKey, body: { reason: `${decision}, across the upgrade` } },
    );
    if (res.status === 200) return res.body.payload.status;
    if (res.status !== 503 || attempt >= 20)
      throw new Error(`${decision}: ${res.status} ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function repairAwaitingApproval(): Promise<{ repairId: string; childId: string }> {
  const object = await seedRecordedObject(app, { attributes: { status: 'draft' } });
  await storedIn(app.deps.db).worldObjects.updateOne(
    { _id: object._id },
    { $set: { attributes: { status: 'hacked' } } },
  );
  const res = await call<{ payload: { repair_id: string } }>(
    app.url,
    'POST',
    '/v1/repair/request',
    {
      key: proposer.apiKey,
      body: { object_id: object._id },
    },
  );
  expect(res.status).toBe(202);
  const repairId = res.body.payload.repair_id;
  for (let i = 0; i < 200; i += 1) {
    const record = await app.deps.repos.repairs.findById(repairId);
    if (record?.status === 'awaiting_approval')
      return { repairId, childId: record.child_action_id! };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`repair ${repairId} never awaited approval`);
}

/** The patches a workflow run recorded, by id (`core_patch` markers, `{ id, deprecated }`). */
const patchesIn = (history: History): string[] =>
  (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    const data = marker?.details?.['patch-data']?.payloads?.[0]?.data;
    if (marker?.markerName !== 'core_patch' || !data) return [];
    return [(JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id];
  });

const historyOf = (workflowId: string, runId?: string) =>
  client.workflow.getHandle(workflowId, runId).fetchHistory();

const gliderSpec: NormalizedSpec = {
  scaffold: 'life-lattice',
  envelope: 'lattice-standard',
  params: { width: 64, height: 64, rule: 'B3/S23', ticks: 400, pattern: 'glider' },
};

describe('a rolling upgrade to a build with a patched change', () => {
  it('takes workflows started on the current build to their end, and new ones the new way', async () => {
    let worker: TestWorker = await startTestWorker(app.deps);
    let stopped = false;
    try {
      // On the current build: an action with one of its two approvals, one with none, a
      // repair waiting for its child's approval, and a deployment mid-run.
      const halfApproved = await proposeUpdate(app, proposer, {
        patch: { status: 'published' },
        bounds: { required_approvals: 2 },
      });
      expect(await decide(halfApproved, 'approve', alice)).toBe('awaiting_approval');
      const awaiting = await proposeUpdate(app, proposer, { patch: { status: 'published' } });
      const repair = await repairAwaitingApproval();
      const deployment = deploymentRecordOf(gliderSpec);
      const deploying = await client.workflow.start('substrateDeploymentWorkflow', {
        workflowId: deployment.workflow_id,
        taskQueue: app.deps.config.taskQueue,
        args: [{ deployment, chunks_per_run: 10 }],
      });
      let live = await deploying.query(deploymentStateQuery);
      for (let i = 0; i < 400 && live.progress.tick < 25; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        live = await deploying.query(deploymentStateQuery);
      }
      expect(live).toMatchObject({ stage: 'deploying', status: 'running' });

      // The upgrade: the worker stops (draining what it runs); one on the next build starts.
      await worker.stop();
      stopped = true;
      worker = await startTestWorker(app.deps, undefined, { workflowBundleCode: nextBuild });
      stopped = false;

      expect(await decide(halfApproved, 'approve', bob)).toBe('approved');
      expect(await decide(halfApproved, 'execute', bob)).toBe('executed');
      expect(await decide(awaiting, 'approve', alice)).toBe('approved');
      expect(await decide(awaiting, 'execute', alice)).toBe('executed');
      // The repair's child executes once approved, as its repair asked.
      expect(await decide(repair.childId, 'approve', alice)).toMatch(/^(approved|executing)$/);
      const repaired = (await client.workflow
        .getHandle(repairWorkflowId(repair.repairId))
        .result()) as RepairRecord;
      expect(repaired).toMatchObject({ status: 'repaired', result: { version: 2 } });
      const deployed = (await deploying.result()) as DeploymentProgressState;
      expect(deployed).toMatchObject({ status: 'ready', stage: 'ready' });
      const engine = createSubstrate(gliderSpec.scaffold, gliderSpec.params);
      engine.step(gliderSpec.params.ticks);
      expect(deployed.final?.digest).toBe(engine.digest());

      // Started after the upgrade: the patched branch (its marker, then its memo).
      const fresh = await proposeUpdate(app, proposer, { patch: { status: 'published' } });
      expect(await decide(fresh, 'approve', alice)).toBe('approved');
      expect(await decide(fresh, 'execute', alice)).toBe('executed');
      expect(patchesIn(await historyOf(actionWorkflowId(fresh)))).toContain(UPGRADE_PATCH);
      const freshMemo = (await client.workflow.getHandle(actionWorkflowId(fresh)).describe()).memo;
      expect(freshMemo).toEqual(UPGRADE_MEMO);

      // Started before it: the old branch, all the way (no marker), though they ended after.
      for (const id of [
        actionWorkflowId(halfApproved),
        actionWorkflowId(awaiting),
        actionWorkflowId(repair.childId),
        repairWorkflowId(repair.repairId),
      ]) {
        expect({ id, patches: patchesIn(await historyOf(id)) }).toEqual({
          id,
          patches: expect.not.arrayContaining([UPGRADE_PATCH]),
        });
      }
      // The deployment's first run began on the current build; its last run, started by
      // continue-as-new after the upgrade, took the new branch.
      const firstRun = await historyOf(deployment.workflow_id, deploying.firstExecutionRunId);
      expect(patchesIn(firstRun)).not.toContain(UPGRADE_PATCH);
      expect(patchesIn(await historyOf(deployment.workflow_id))).toContain(UPGRADE_PATCH);
    } finally {
      if (!stopped) await worker.stop();
    }
  }, 180_000);

  it('replays every stored history on the next build too (the patch keeps them valid)', async () => {
    const stored: StoredHistory[] = loadStoredHistories();
    expect(stored.length).toBeGreaterThan(0);
    expect(await replayFailures(nextBuild, stored)).toEqual([]);
  });
});
