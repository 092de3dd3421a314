import type { Worker } from '@temporalio/worker';
import type { AppDeps } from '../../src/app/deps';
import { createSecurityEventReporter } from '../../src/observability/security-events';
import { createWorker } from '../../src/worker/create-worker';
import { createWorkerTrust } from '../../src/worker/trust';
import { testTemporalAddress, workflowBundleCode as builtWorkflowBundle } from '../test-env';

export interface TestWorker {
  worker: Worker;
  /** Graceful shutdown: stops polling, drains, closes the connection. */
  stop(): Promise<void>;
}

/** The activity dependencies of a worker serving this app's database. */
export const activityDepsOf = (deps: AppDeps) => ({
  repos: deps.repos,
  webhookAllowlist: deps.config.webhookAllowlist,
  webhookSigningSecret: deps.config.webhookSigningSecret,
  webhookTimeoutMs: deps.config.webhookTimeoutMs,
  keyPepper: deps.config.keyPepper,
  trust: createWorkerTrust(
    deps.config,
    createSecurityEventReporter({
      recorder: deps.serviceEvents,
      logger: deps.logger,
      counter: deps.metrics.securityEvents,
    }),
  ),
});

/** A real worker on the app's task queue, running the pre-built workflow bundle. */
export async function startTestWorker(
  deps: AppDeps,
  taskQueue = deps.config.taskQueue,
  options: {
    compute?: boolean;
    computeConcurrentChunks?: number;
    /** Another build of the workflows (the rolling-upgrade test); default the pre-built one. */
    workflowBundleCode?: string;
  } = {},
): Promise<TestWorker> {
  const { workflowBundleCode, ...workerOptions } = options;
  const workers = await createWorker({
    ...workerOptions,
    address: testTemporalAddress(),
    namespace: 'default',
    publicBaseUrl: deps.config.publicBaseUrl,
    taskQueue,
    workflowBundle: { code: workflowBundleCode ?? builtWorkflowBundle() },
    activityDeps: activityDepsOf(deps),
    // The app's tracing, when the test started one: the worker's spans join the same traces.
    ...(deps.tracing ? { tracing: deps.tracing } : {}),
  });
  const running = workers.run();
  return {
    worker: workers.worker,
    async stop() {
      workers.shutdown();
      await running;
      await workers.connection.close();
    },
  };
}
