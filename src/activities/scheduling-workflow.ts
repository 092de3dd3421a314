import { ApplicationFailure, Context } from '@temporalio/activity';

/** The workflow run that scheduled the current activity. */
export interface SchedulingWorkflow {
  workflowId: string;
  runId: string;
}

/**
 * The run that scheduled the current activity. Since SDK 1.24 an activity may also be
 * started on its own (a standalone activity), so `info.workflowExecution` is optional;
 * ours are only ever scheduled by our workflows, and the trust checks that name the run
 * cannot judge one without it, so such a start fails for good instead of guessing.
 */
export function schedulingWorkflow(): SchedulingWorkflow {
  const { workflowExecution, activityType } = Context.current().info;
  if (!workflowExecution) {
    throw ApplicationFailure.nonRetryable(
      `activity ${activityType} runs only when a workflow schedules it`,
      'NotScheduledByWorkflow',
    );
  }
  return { workflowId: workflowExecution.workflowId, runId: workflowExecution.runId };
}
