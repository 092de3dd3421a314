import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { planSettledUpdate } from '../workflows/external-action.contract';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const RESET_CAUSE =
  temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW;

async function eventsOf(client: Client, workflowId: string, runId: string) {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return history.events ?? [];
}

/**
 * Updates that only read (the api's wait for a proposal's plan): dropping one loses no
 * decision, so it does not make a reset's run disagree with the ledger.
 */
const READ_ONLY_UPDATES = new Set([planSettledUpdate.name]);

/** Update ids the events accepted (or, in a reset's new run, admitted again by reapplying). */
function updateIdsIn(events: HistoryEvent[]): Set<string> {
  const ids = new Set<string>();
  for (const event of events) {
    const accepted = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    const admitted = event.workflowExecutionUpdateAdmittedEventAttributes?.request;
    const request = accepted ?? admitted;
    const id = request?.meta?.updateId;
    if (id && !READ_ONLY_UPDATES.has(request?.input?.name ?? '')) ids.add(id);
  }
  return ids;
}

/**
 * The ids of updates that the run's reset dropped: accepted by the base run after the reset
 * point and not reapplied to this run (`temporal workflow reset --reapply-exclude Update`
 * past a decision). Our workflows record every accepted decision in the ledger as they
 * take it, so such a run would go on from a state that lacks transitions the ledger
 * already has (docs/temporal-ui.md, "Resets"). Empty for a run that no reset started, and
 * for a reset whose updates were all reapplied.
 */
export async function updatesDroppedByReset(
  client: Client,
  workflowId: string,
  runId: string,
): Promise<string[]> {
  const events = await eventsOf(client, workflowId, runId);
  // A reset run is the base run's history up to the reset point, then a workflow task
  // failed with the reset cause that names the base run, then what was reapplied.
  const resetAt = events.findIndex(
    (event) => event.workflowTaskFailedEventAttributes?.cause === RESET_CAUSE,
  );
  const baseRunId = events[resetAt]?.workflowTaskFailedEventAttributes?.baseRunId;
  if (resetAt < 0 || !baseRunId) return [];
  const kept = updateIdsIn(events);
  const baseEvents = await eventsOf(client, workflowId, baseRunId);
  const afterResetPoint = baseEvents.slice(resetAt);
  return [...updateIdsIn(afterResetPoint)].filter((id) => !kept.has(id));
}

/** Who reset a workflow into this run, as the run's history tells; null when no reset did. */
export async function resetOriginOf(
  client: Client,
  workflowId: string,
  runId: string,
): Promise<{ base_run_id: string | null; identity: string | null; reason: string | null } | null> {
  const events = await eventsOf(client, workflowId, runId);
  const reset = events.find(
    (event) => event.workflowTaskFailedEventAttributes?.cause === RESET_CAUSE,
  )?.workflowTaskFailedEventAttributes;
  if (!reset) return null;
  return {
    base_run_id: reset.baseRunId ?? null,
    identity: reset.identity ?? null,
    reason: reset.failure?.message ?? null,
  };
}
