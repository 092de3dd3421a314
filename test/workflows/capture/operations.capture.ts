import type { Client } from '@temporalio/client';
import { checkpointWorkflowId } from '../../../src/workflows/checkpoint.contract';
import { proofWorkflowId } from '../../../src/workflows/proof.contract';
import type { ServiceProbeInput } from '../../../src/workflows/service-probe.contract';
import { proposeUpdate } from '../../helpers/actions';
import { call } from '../../helpers/http';
import { createTestKey, type TestKey } from '../../helpers/keys';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { startTestWorker, type TestWorker } from '../../helpers/test-worker';
import { saveHistory } from './save-history';

// The operations workflows: checkpointWorkflow, proofWorkflow, scenarioWorkflow and the
// health check's serviceProbeWorkflow, each started the way the api starts it.
let app: TestApp;
let worker: TestWorker;
let client: Client;
let key: TestKey;
beforeAll(async () => {
  app = await startTestApp('capture_operations');
  worker = await startTestWorker(app.deps);
  client = await app.deps.temporal.getClient();
  key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

/** POSTs as the api's client does; any 2xx (200 done, 202 still running) will do. */
async function post<T>(path: string, body: Record<string, unknown>): Promise<T> {
  const res = await call<{ payload: T }>(app.url, 'POST', path, { key: key.apiKey, body });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body.payload;
}

describe('operations workflow histories', () => {
  it('checkpointWorkflow: completed, two scopes', async () => {
    await proposeUpdate(app, key, { patch: { status: 'published' } }); // something to copy
    const { checkpoint_id } = await post<{ checkpoint_id: string }>(
      '/v1/continuous-ops/checkpoint',
      { label: 'captured for the replay test', scope: ['world', 'actions'] },
    );
    const { result } = await saveHistory(client, 'completed', checkpointWorkflowId(checkpoint_id));
    expect(result).toMatchObject({ status: 'completed' });
  });

  it('proofWorkflow: completed, every check', async () => {
    const { run_id } = await post<{ run_id: string }>('/v1/proofs/checks', {});
    const { result } = await saveHistory(client, 'completed', proofWorkflowId(run_id));
    expect(result).toMatchObject({ status: 'completed' });
  });

  it('scenarioWorkflow: glider-transit passed', async () => {
    const run = await post<{ workflow_id: string }>('/v1/scenarios/run', {
      scenario: 'glider-transit',
      params: { side: 16 },
    });
    const { result } = await saveHistory(client, 'glider-transit-passed', run.workflow_id);
    expect(result).toMatchObject({ status: 'passed' });
  });

  it('serviceProbeWorkflow: one round trip', async () => {
    const input: ServiceProbeInput = { requestedAt: new Date().toISOString() };
    const handle = await client.workflow.start('serviceProbeWorkflow', {
      workflowId: `service-probe-capture-${Date.now()}`,
      taskQueue: app.deps.config.taskQueue,
      args: [input],
    });
    const { result } = await saveHistory(client, 'completed', handle.workflowId);
    expect(result).toMatchObject({ requestedAt: input.requestedAt });
  });
});
