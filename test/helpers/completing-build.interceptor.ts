import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

/**
 * A build whose runs complete at once, recording nothing: a stand-in for any run that
 * completes short of a final status in its action's ledger (a worker of a build before a
 * fix, taking a reset's run during a rolling upgrade). It issues no command before the
 * completion, so it only replays a history reset to its first task.
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      execute: () => Promise.resolve(null),
    },
  ],
});
