import type { Client, WorkflowExecutionStatusName } from '@temporalio/client';
import { optionalTsToDate } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { WorkflowClosure } from '../domain/workflow-closure';
import { resetOriginOf } from './reset-divergence';

const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** How a run closed, in the words `WorkflowClosure` uses; undefined while it runs or completed. */
const CLOSED_AS: Partial<Record<WorkflowExecutionStatusName, WorkflowClosure['status']>> = {
  TERMINATED: 'terminated',
  CANCELLED: 'cancelled',
  TIMED_OUT: 'timed_out',
  FAILED: 'failed',
};

/**
 * Events read, newest first, to find who closed a run and why: the close event is the
 * newest; a cancellation's request comes a workflow task or two before it.
 */
const EVENTS_READ = 20;

/** The newest events of a run, newest first (one page, `EVENTS_READ` at most). */
async function newestEvents(client: Client, workflowId: string, runId: string) {
  const page = await client.workflowService.getWorkflowExecutionHistoryReverse({
    namespace: client.options.namespace,
    execution: { workflowId, runId },
    maximumPageSize: EVENTS_READ,
  });
  return page.history?.events ?? [];
}

/** Who and why, from the close event and (for a cancellation) the request before it. */
function whoAndWhy(events: HistoryEvent[]): Pick<WorkflowClosure, 'reason' | 'identity'> {
  for (const event of events) {
    const terminated = event.workflowExecutionTerminatedEventAttributes;
    if (terminated) {
      return { reason: terminated.reason || null, identity: terminated.identity || null };
    }
    const failed = event.workflowExecutionFailedEventAttributes;
    if (failed) return { reason: failed.failure?.message || null, identity: null };
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT) {
      return { reason: 'the workflow run passed its run or execution timeout', identity: null };
    }
    const cancel = event.workflowExecutionCancelRequestedEventAttributes;
    if (cancel) return { reason: cancel.cause || null, identity: cancel.identity || null };
  }
  return { reason: null, identity: null };
}

/**
 * How a closed run of `workflowId` ended, when it ended other than by completing (or
 * continuing as new): status, close time, and who and why where Temporal recorded them
 * (`temporal workflow terminate --reason …` records both). Undefined for a run that is
 * running, completed or continued as new; with `completed`, a completed run is a closure
 * too (an action's run that completed short of a final status: `completionOf`). Every api
 * process reading the same run reads the same closure, so what is written from it is the
 * same everywhere.
 */
export async function closureOf(
  client: Client,
  workflowId: string,
  runId: string,
  options: { completed?: boolean } = {},
): Promise<WorkflowClosure | undefined> {
  const described = await client.workflow.getHandle(workflowId, runId).describe();
  if (options.completed && described.status.name === 'COMPLETED') {
    return completionOf(client, workflowId, runId, described);
  }
  const status = CLOSED_AS[described.status.name];
  if (!status) return undefined;
  const events = await newestEvents(client, workflowId, runId);
  const closeEvent = events[0];
  return {
    workflow_id: workflowId,
    run_id: runId,
    workflow_type: described.type,
    status,
    closed_at: (
      optionalTsToDate(closeEvent?.eventTime) ??
      described.closeTime ??
      new Date()
    ).toISOString(),
    ...whoAndWhy(events),
  };
}

/**
 * A completed run as a closure: nobody closed it from outside, so who and why are the
 * reset's that started it (`temporal workflow reset --reason …`), when one did.
 */
async function completionOf(
  client: Client,
  workflowId: string,
  runId: string,
  described: { type: string; closeTime?: Date },
): Promise<WorkflowClosure> {
  const reset = await resetOriginOf(client, workflowId, runId);
  const started = reset ? `; a reset started it${reset.reason ? ` (${reset.reason})` : ''}` : '';
  return {
    workflow_id: workflowId,
    run_id: runId,
    workflow_type: described.type,
    status: 'completed',
    closed_at: (described.closeTime ?? new Date()).toISOString(),
    reason: `the run completed while the ledger had not ended its resource${started}`,
    identity: reset?.identity ?? null,
  };
}

/** The current run of a workflow id: its run id and whether it is still running. */
export async function currentRunOf(
  client: Client,
  workflowId: string,
): Promise<{ runId: string; running: boolean } | undefined> {
  try {
    const described = await client.workflow.getHandle(workflowId).describe();
    return { runId: described.runId, running: described.status.name === 'RUNNING' };
  } catch (error) {
    if ((error as { name?: string }).name === 'WorkflowNotFoundError') return undefined;
    throw error;
  }
}
