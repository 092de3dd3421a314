import { proxyActivities } from '@temporalio/workflow';
import type { ProbeActivities } from '../activities';
import type { ServiceProbeInput, ServiceProbeResult } from './service-probe.contract';

const { probeWorker } = proxyActivities<ProbeActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/**
 * Round trip through the whole pipeline (api → Temporal → worker → activity): the service
 * health check starts it and reports the end-to-end lag.
 */
export async function serviceProbeWorkflow(input: ServiceProbeInput): Promise<ServiceProbeResult> {
  const { activityAt, workerIdentity } = await probeWorker();
  return { requestedAt: input.requestedAt, activityAt, workerIdentity };
}
