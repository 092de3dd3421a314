import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { historyToJSON, type History } from '@temporalio/common/lib/proto-utils';
import { CAPTURED_DIR, workflowTypeOf } from '../../helpers/histories';

const CLOSING_EVENTS = [
  'workflowExecutionCompletedEventAttributes',
  'workflowExecutionFailedEventAttributes',
  'workflowExecutionCanceledEventAttributes',
  'workflowExecutionContinuedAsNewEventAttributes',
] as const;

/**
 * Waits for a workflow run to close, then stores its history as
 * `captured/<workflowType>/<name>.json` in the JSON form `temporal workflow show --output json`
 * writes and `historyFromJSON` reads. One event per line, so a re-capture diffs readably.
 * A run still open would replay as a prefix only: it is refused. Answers the run's result too.
 */
export async function saveHistory(
  client: Client,
  name: string,
  workflowId: string,
  runId?: string,
): Promise<{ history: History; result: unknown }> {
  const handle = client.workflow.getHandle(workflowId, runId, { followRuns: false });
  await untilStarted(handle);
  // Failed and cancelled runs are histories too (their result is undefined here).
  const result: unknown = await handle.result().catch(() => undefined);
  const history = await handle.fetchHistory();
  const last = history.events?.at(-1);
  if (!last || !CLOSING_EVENTS.some((attributes) => last[attributes])) {
    throw new Error(`${workflowId} (${name}) has not closed: its last event is not a close`);
  }
  const type = workflowTypeOf(history);
  const { events } = JSON.parse(historyToJSON(history)) as { events: unknown[] };
  mkdirSync(join(CAPTURED_DIR, type), { recursive: true });
  writeFileSync(
    join(CAPTURED_DIR, type, `${name}.json`),
    `{"events":[\n${events.map((event) => JSON.stringify(event)).join(',\n')}\n]}\n`,
  );
  return { history, result };
}

/** Some workflows are started by an activity a moment after their record appears. */
async function untilStarted(handle: WorkflowHandle): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await handle.describe();
      return;
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError) || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Stores every run of a workflow that continued as new, from its first run on, as
 * `<name>-run1.json`, `<name>-run2.json`, …; answers how many runs there were.
 */
export async function saveRunChain(
  client: Client,
  name: string,
  workflowId: string,
  firstRunId: string,
): Promise<number> {
  let runId: string | null | undefined = firstRunId;
  let runs = 0;
  while (runId) {
    runs += 1;
    const { history } = await saveHistory(client, `${name}-run${runs}`, workflowId, runId);
    runId =
      history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
  }
  return runs;
}
