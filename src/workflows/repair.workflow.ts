import {
  ApplicationFailure,
  CancelledFailure,
  ParentClosePolicy,
  TerminatedFailure,
  TimeoutFailure,
  condition,
  getExternalWorkflowHandle,
  deprecatePatch,
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
import type { RepairRecord } from '../store/repairs.repo';
import { externalActionWorkflow } from './external-action.workflow';
import {
  childEnded,
  diagnosed,
  ending,
  entered,
  repairCurrentDetails,
  stepFailed,
  verified,
  type RepairStage,
} from './repair-stages';
import {
  actionStaticDetails,
  actionStaticSummary,
  actionWorkflowId,
  type ActionState,
} from './external-action.contract';
import {
  childActionStatusSignal,
  repairStateQuery,
  type RepairWorkflowInput,
} from './repair.contract';
import {
  ActionKindKey,
  ActionStatusKey,
  OpsStatusKey,
  ProposedByKey,
  WorldObjectIdKey,
} from './shared.contract';

// Reads and writes of our own store: local activities, run inside the workflow task with no
// round trip through the server per step (a repair that finds nothing to do is then about
// one workflow task). A store outage is ridden out, but not forever.
const { diagnoseRepair, finishAndRecordRepair, prepareRestoreAction, recordRepair, verifyRepair } =
  proxyLocalActivities<RepairActivities>({
    startToCloseTimeout: '1 minute',
    scheduleToCloseTimeout: '1 day',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds' },
  });

/** Patch: a reset run that finds its child already started cancels it and fails, saying so. */
const ORPHAN_CHILD_AFTER_RESET = 'repair-cancels-child-of-reset-run';

/**
 * Deprecated patch (docs/workflow-versioning.md): fewer sequential store steps. A status's
 * record runs beside the step that follows it (diagnose, prepare, verify: they read, and the
 * record lands before the result is used), and the end's ledger entry and final record are
 * one local activity. Every run takes this path; the call stays until no run with the
 * marker can be open.
 */
const FEWER_STORE_STEPS = 'repair-fewer-store-steps';

/**
 * One repair of one world object (docs/repair.md): diagnose → plan → apply → verify.
 * A plan that changes data is applied only by a child `world.restore_object` action, which
 * goes through the approval path like any other; the repair waits for it and verifies what
 * it wrote. The workflow is the single writer of the repair's record; when it ends, the
 * repair goes into the hash-chained repair ledger and the object is free for the next one.
 * What each step makes of the record is `repair-stages.ts`'s; this shell runs the steps.
 */
export async function repairWorkflow(input: RepairWorkflowInput): Promise<RepairRecord> {
  let record: RepairRecord = { ...input.record, steps: [...input.record.steps] };
  let childStatus: ActionState['status'] | null = null;
  deprecatePatch(FEWER_STORE_STEPS);
  setHandler(repairStateQuery, () => record);
  setHandler(childActionStatusSignal, ({ action_id, status }) => {
    if (action_id === record.child_action_id) childStatus = status;
  });

  const now = (): string => new Date().toISOString();
  const moveTo = (status: RepairStatus): Promise<void> => {
    const next = entered(record, status, now());
    record = next.record;
    if (next.statusChanged)
      upsertSearchAttributes([{ key: OpsStatusKey, value: `repair.${status}` }]);
    setCurrentDetails(repairCurrentDetails(record, input.names?.target));
    return recordRepair(record);
  };
  /**
   * Enters `status`, then runs `step` on the record beside its record. Settles once the
   * record has landed, with the step still to be awaited: a failed record is not the step's
   * failure.
   */
  const moveToThen = async <T>(
    status: RepairStatus,
    step: (record: RepairRecord) => Promise<T>,
  ): Promise<{ done: Promise<T> }> => {
    const recorded = moveTo(status);
    const done = step(record);
    // Awaited by the caller after the record: until then its failure is not unhandled.
    done.catch(() => undefined);
    await recorded;
    return { done };
  };
  const end = async (status: RepairStatus): Promise<RepairRecord> => {
    record = ending(record, status, now());
    upsertSearchAttributes([{ key: OpsStatusKey, value: `repair.${status}` }]);
    record = entered(record, status, now()).record;
    record = { ...record, ledger_seq: await finishAndRecordRepair(record) };
    setCurrentDetails(repairCurrentDetails(record, input.names?.target));
    if (status === 'failed') {
      throw ApplicationFailure.nonRetryable(`repair ${record._id} failed: ${record.error}`);
    }
    return record;
  };
  /** Takes what a step made of the record: where the repair goes next. */
  const took = (stage: RepairStage): RepairStatus => {
    record = stage.record;
    return stage.next;
  };

  const diagnosing = await moveToThen('diagnosing', diagnoseRepair);
  let diagnosis;
  try {
    diagnosis = await diagnosing.done;
  } catch (error) {
    return end(took(stepFailed(record, 'diagnose', messageOf(error), now())));
  }
  const afterDiagnosis = took(diagnosed(record, diagnosis, now()));
  if (afterDiagnosis !== 'planned') return end(afterDiagnosis);
  const plan = record.plan!;
  const preparing = await moveToThen('planned', (planned) =>
    prepareRestoreAction({ record: planned, request_signature: input.request_signature }),
  );
  const actionInput = { ...(await preparing.done), names: input.names };
  record = { ...record, child_action_id: actionInput.action_id };
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
    const orphaned = `child action ${actionInput.action_id} was started by an earlier run of this repair's workflow, which a reset replaced; this run cannot follow it, so it is cancelled: request the repair again`;
    return end(took(stepFailed(record, 'apply', orphaned, now())));
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
    const unfinished = `child action ${record.child_action_id} did not finish: ${messageOf(error)}`;
    return end(took(stepFailed(record, 'apply', unfinished, now())));
  }
  const afterChild = took(childEnded(record, final, now()));
  if (afterChild !== 'verifying') return end(afterChild);
  const checks = await (await moveToThen('verifying', verifyRepair)).done;
  return end(took(verified(record, checks, now())));
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
