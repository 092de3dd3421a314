import {
  ApplicationFailure,
  CancelledFailure,
  ParentClosePolicy,
  TerminatedFailure,
  TimeoutFailure,
  condition,
  getExternalWorkflowHandle,
  patched,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { RepairActivities } from '../activities';
import type { RepairStatus } from '../domain/repairs/schemas';
import type { RepairRecord, RepairStep } from '../store/repairs.repo';
import { externalActionWorkflow } from './external-action.workflow';
import {
  ActionKindKey,
  ActionStatusKey,
  OpsStatusKey,
  ProposedByKey,
  WorldObjectIdKey,
  actionStaticDetails,
  actionStaticSummary,
  actionWorkflowId,
  childActionStatusSignal,
  repairStateQuery,
  type ActionState,
  type RepairWorkflowInput,
} from './shared';

// Reads and writes of our own store: local activities, run inside the workflow task with no
// round trip through the server per step (a repair that finds nothing to do is then about
// one workflow task). A store outage is ridden out, but not forever.
const { diagnoseRepair, finishRepair, prepareRestoreAction, recordRepair, verifyRepair } =
  proxyLocalActivities<RepairActivities>({
    startToCloseTimeout: '1 minute',
    scheduleToCloseTimeout: '1 day',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds' },
  });

/** Patch: a reset run that finds its child already started cancels it and fails, saying so. */
const ORPHAN_CHILD_AFTER_RESET = 'repair-cancels-child-of-reset-run';

/** What the child action's final status makes of the repair. */
const OUTCOME_OF_CHILD: Partial<Record<ActionState['status'], RepairStatus>> = {
  rejected: 'rejected',
  expired: 'rejected',
  dry_run_failed: 'failed',
  failed: 'failed',
};

/**
 * One repair of one world object (docs/repair.md): diagnose → plan → apply → verify.
 * A plan that changes data is applied only by a child `world.restore_object` action, which
 * goes through the approval path like any other; the repair waits for it and verifies what
 * it wrote. The workflow is the single writer of the repair's record; when it ends, the
 * repair goes into the hash-chained repair ledger and the object is free for the next one.
 */
export async function repairWorkflow(input: RepairWorkflowInput): Promise<RepairRecord> {
  const record: RepairRecord = { ...input.record, steps: [...input.record.steps] };
  let childStatus: ActionState['status'] | null = null;
  setHandler(repairStateQuery, () => record);
  setHandler(childActionStatusSignal, ({ action_id, status }) => {
    if (action_id === record.child_action_id) childStatus = status;
  });

  const step = (name: RepairStep['step'], outcome: RepairStep['outcome'], detail: string) =>
    record.steps.push({ step: name, outcome, at: new Date().toISOString(), detail });
  const moveTo = async (status: RepairStatus) => {
    const at = new Date().toISOString();
    if (status !== record.status) {
      upsertSearchAttributes([{ key: OpsStatusKey, value: `repair.${status}` }]);
      record.status_timestamps[status] = at;
    }
    record.status = status;
    record.seq += 1;
    record.updated_at = at;
    setCurrentDetails(
      [
        `**Stage:** ${status}`,
        `**Object:** ${input.names?.target ?? ''} \`${record.object_id}\``,
        `**Strategy:** ${record.strategy}`,
        ...(record.child_action_id ? [`**Child action:** \`${record.child_action_id}\``] : []),
        ...(record.error ? [`**Error:** ${record.error}`] : []),
      ]
        .map((line) => `- ${line}`)
        .join('\n'),
    );
    await recordRepair(record);
  };
  const end = async (status: RepairStatus): Promise<RepairRecord> => {
    record.status = status;
    record.completed_at = new Date().toISOString();
    record.status_timestamps[status] = record.completed_at;
    record.ledger_seq = await finishRepair(record);
    await moveTo(status);
    if (status === 'failed') {
      throw ApplicationFailure.nonRetryable(`repair ${record._id} failed: ${record.error}`);
    }
    return record;
  };

  await moveTo('diagnosing');
  let diagnosis;
  try {
    diagnosis = await diagnoseRepair(record);
  } catch (error) {
    record.error = messageOf(error);
    step('diagnose', 'failed', record.error);
    return end('failed');
  }
  record.findings = diagnosis.findings;
  const failing = diagnosis.findings.filter((finding) => !finding.ok).length;
  step('diagnose', 'done', `${diagnosis.findings.length} check(s), ${failing} not holding`);
  if (!diagnosis.plan) {
    step('plan', 'skipped', 'nothing to change');
    return end('no_action_needed');
  }
  const plan = diagnosis.plan;
  record.plan = plan;
  const changes =
    Object.keys(plan.diff.attributes).length + Object.keys(plan.diff.external_state).length;
  step('plan', 'done', `${changes} field change(s) from ${plan.source}, ${plan.digest}`);
  await moveTo('planned');

  const actionInput = {
    ...(await prepareRestoreAction({ record, request_signature: input.request_signature })),
    names: input.names,
  };
  record.child_action_id = actionInput.action_id;
  const base = input.public_base_url ?? '';
  const startingChild = startChild(externalActionWorkflow, {
    workflowId: actionWorkflowId(actionInput.action_id),
    args: [actionInput],
    // The repair owns its child: ending the repair by force ends the action too.
    parentClosePolicy: ParentClosePolicy.TERMINATE,
    typedSearchAttributes: [
      { key: ActionKindKey, value: 'world.restore_object' },
      { key: ActionStatusKey, value: 'proposed' },
      { key: ProposedByKey, value: record.requested_by.principal_id },
      { key: WorldObjectIdKey, value: record.object_id },
    ],
    staticSummary: actionStaticSummary(actionInput),
    // The same named details as a proposed action's, then what repair it applies.
    staticDetails: `${actionStaticDetails(actionInput, {
      api: `${base}/v1/external-actions/${actionInput.action_id}`,
      console: `${base}/console#/action/${actionInput.action_id}`,
    })}\n\nApplies repair \`${record._id}\` (${record.strategy}, from ${plan.source}, plan \`${plan.digest}\`).`,
  });
  let child;
  try {
    child = await startingChild;
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    if (!patched(ORPHAN_CHILD_AFTER_RESET)) throw error;
    // Reset to before the child started: the run that started it (terminated by the reset)
    // owned it, and this run cannot wait for a workflow it did not start. Left alone it could
    // still be approved and change the object under a repair that ended: cancel it (the api
    // records it `aborted`) and end saying so.
    await getExternalWorkflowHandle(actionWorkflowId(actionInput.action_id)).cancel();
    record.error = `child action ${actionInput.action_id} was started by an earlier run of this repair's workflow, which a reset replaced; this run cannot follow it, so it is cancelled: request the repair again`;
    step('apply', 'failed', record.error);
    return end('failed');
  }
  const result = child.result();
  let finished = false;
  void result.then(
    () => (finished = true),
    () => (finished = true),
  );
  // The child tells its status: the repair follows it into approval, then into applying.
  await condition(() => finished || (childStatus !== null && childStatus !== 'proposed'));
  if (!finished) await moveTo('awaiting_approval');
  await condition(() => finished || childStatus === 'executing');
  if (!finished) await moveTo('applying');
  let final: ActionState;
  try {
    final = await result;
  } catch (error) {
    record.error = `child action ${record.child_action_id} did not finish: ${messageOf(error)}`;
    step('apply', 'failed', record.error);
    return end('failed');
  }
  const outcome = OUTCOME_OF_CHILD[final.status];
  if (outcome || final.status !== 'executed') {
    const why = final.execution?.reason ?? final.dry_run?.policy.reasons.join('; ') ?? '';
    record.error = outcome === 'rejected' ? null : `child action ${final.status}: ${why}`;
    step(
      'apply',
      'skipped',
      `child action ${final.action_id} ${final.status}${why ? `: ${why}` : ''}`,
    );
    return end(outcome ?? 'failed');
  }
  const applied = final.execution?.result ?? {};
  record.result = {
    version: typeof applied['version'] === 'number' ? applied['version'] : plan.base_version,
    external_revision:
      typeof applied['external_revision'] === 'number' ? applied['external_revision'] : null,
  };
  step('apply', 'done', `child action ${final.action_id} executed`);
  await moveTo('verifying');

  const checks = await verifyRepair(record);
  record.findings = [
    ...record.findings,
    ...checks.map((c) => ({ ...c, check: `verify.${c.check}` })),
  ];
  // Conditions report disputes between sources; a repair does not settle those.
  const broken = checks.filter((c) => !c.ok && c.check !== 'external_conditions');
  if (broken.length > 0) {
    record.error = broken.map((c) => c.detail).join('; ');
    step('verify', 'failed', record.error);
    return end('failed');
  }
  step('verify', 'done', `${checks.length} check(s) hold`);
  return end('repaired');
}

/**
 * Why a step or the child failed. A child ended from Temporal fails with an empty message
 * of its own: its kind says what happened (the api records the child `aborted`).
 */
function messageOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof TerminatedFailure) return 'its workflow was terminated in Temporal';
  if (cause instanceof CancelledFailure) return 'its workflow was cancelled in Temporal';
  if (cause instanceof TimeoutFailure) return 'its workflow timed out';
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
