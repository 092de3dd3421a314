import { Worker } from '@temporalio/worker';
import type { StoredHistory } from './histories';

export interface ReplayFailure {
  file: string;
  /** `DeterminismViolationError` or `ReplayError`. */
  error: string;
  message: string;
}

/**
 * Replays each history against a workflow bundle, as a worker restarted on that build would
 * (no cache: every history from its first event), and answers the ones that did not replay.
 */
export async function replayFailures(
  bundleCode: string,
  histories: StoredHistory[],
): Promise<ReplayFailure[]> {
  const failures: ReplayFailure[] = [];
  const results = Worker.runReplayHistories(
    { workflowBundle: { code: bundleCode } },
    // The file stands in for the workflow id: histories hold none, and it names a failure.
    histories.map(({ file, history }) => ({ workflowId: file, history })),
  );
  for await (const { workflowId, error } of results) {
    if (error) failures.push({ file: workflowId, error: error.name, message: error.message });
  }
  return failures;
}
