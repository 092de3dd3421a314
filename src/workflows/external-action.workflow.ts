import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  deprecatePatch,
  getExternalWorkflowHandle,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { ActionActivities } from '../activities';
import {
  ACTION_EFFECT_STEP as EFFECT_STEP,
  ACTION_STORE_STEP as STORE_STEP,
} from './activity-options';
import {
  actionCurrentDetails,
  actionStepSummary,
  recordSummary,
  refusedProposalDetails,
  refusedRunDetails,
  type ActionNames,
} from './action-details';
import {
  actorOf,
  decided,
  decisionOf,
  executedByItself,
  executesByItself,
  executionScheduled,
  expired,
  expiresAtMsOf,
  openAction,
  planned,
  recorded,
  refusalsFlushed,
  refused,
  type ActionEffect,
  type ActionStep,
} from './action-machine';
import { executionEnded, failedOutcome } from './action-execution';
import { actionTargetText } from './action-text';
import { decisionRefusal } from './action-validation';
import { copy, createActionRecords } from './action-records';
import { createDecisionGate } from './decision-gate';
import {
  ACTION_ERRORS,
  actionStateQuery,
  approveActionUpdate,
  executeActionUpdate,
  planSettledUpdate,
  rejectActionUpdate,
  type ActionDecision,
  type ActionDecisionInput,
  type ActionState,
  type ActionStatus,
  type ActionWorkflowInput,
} from './external-action.contract';
import { childActionStatusSignal } from './repair.contract';
import { ActionStatusKey, ApprovalsRemainingKey } from './shared.contract';

// `persistTransitions` is the `recordActionTransitions` activity (its registered name).
const {
  openActionProposal,
  executeRecorded,
  recordActionTransitions: persistTransitions,
} = proxyLocalActivities<ActionActivities>(STORE_STEP);

// Webhooks leave the process (a regular activity); our own store's effects are local.
const { applyAction: applyExternalEffect } = proxyActivities<ActionActivities>(EFFECT_STEP);
const { applyAction: applyInternalEffect } = proxyLocalActivities<ActionActivities>(EFFECT_STEP);

/**
 * Deprecated patches, called by the classic shape only (docs/workflow-versioning.md): a
 * child action signals its repair's current run; the effect re-plans by itself.
 */
const SIGNAL_CURRENT_PARENT_RUN = 'child-signals-current-parent-run';
const EFFECT_PLANS_ITSELF = 'effect-plans-itself';
/** A run that finds its action `executing` after the approval wait goes on to the effect. */
const EXECUTING_AT_APPROVAL = 'executing-at-approval-applies-effect';

/** The decision updates, in the order their handlers are set. */
const DECISION_UPDATES = [
  [approveActionUpdate, 'approve'],
  [rejectActionUpdate, 'reject'],
  [executeActionUpdate, 'execute'],
] as const;

const now = (): string => new Date().toISOString();

/**
 * One approval-gated outbound action, from proposal to its final status. The workflow is
 * the single writer of the action's status; its transitions are `action-machine.ts`'s, and
 * this shell turns their effects into Temporal commands: every transition goes to the
 * hash-chained ledger and the MongoDB projection through an activity, in order. Decisions
 * arrive as validated updates, so a caller learns at once whether its decision was accepted;
 * the approval window is a durable timer.
 */
export async function externalActionWorkflow(input: ActionWorkflowInput): Promise<ActionState> {
  let refuse: (failure: ApplicationFailure) => void = () => undefined;
  const refusedRun = new Promise<never>((_, reject) => {
    refuse = reject;
  });
  try {
    return await Promise.race([actionRun(input, refuse), refusedRun]);
  } catch (error) {
    const refusal = runRefusalOf(error);
    if (!refusal) throw error;
    // The ledger refused this run (a reset's run it contradicts): the run ends, showing the
    // status the ledger ends the action in (docs/actions.md, "Resets").
    const status = (refusal.details?.[0] as ActionStatus | undefined) ?? 'aborted';
    upsertSearchAttributes([{ key: ActionStatusKey, value: status }]);
    setCurrentDetails(refusedRunDetails(refusal.message, status));
    throw ApplicationFailure.create({
      type: ACTION_ERRORS.runRefused,
      message: refusal.message,
      nonRetryable: true,
      details: [status],
    });
  }
}

/** The ledger's refusal of this run, if that is what the error is (a local activity's own, or wrapped). */
function runRefusalOf(error: unknown): ApplicationFailure | undefined {
  const failure =
    error instanceof ApplicationFailure ? error : (error as { cause?: unknown } | null)?.cause;
  return failure instanceof ApplicationFailure && failure.type === ACTION_ERRORS.runRefused
    ? failure
    : undefined;
}

async function actionRun(
  input: ActionWorkflowInput,
  refuse: (failure: ApplicationFailure) => void,
): Promise<ActionState> {
  const info = workflowInfo();
  const expiresAtMs = expiresAtMsOf(input);
  let machine = openAction(input, {
    workflow_id: info.workflowId,
    run_id: info.runId,
    first_run_id: info.firstExecutionRunId,
  });
  // The history's shape (docs/workflow-versioning.md, "Shapes"): lean when the first
  // activity recorded the proposal itself, as it does for every run this build starts; a
  // history written before has its answer without a head and replays the classic shape.
  let lean = false;
  // Lean and applied in process: the transitions into `executing` are held for the one local
  // activity that records them, applies the effect and records its outcome.
  const executesInOne = (): boolean => lean && machine.state.action_kind !== 'webhook.post';

  // Names for what people read (the api resolved them at the start; deciders bring theirs).
  const names: ActionNames = {
    ...input.names,
    principals: input.names?.requester
      ? { [input.proposed_by.principal_id]: input.names.requester }
      : {},
  };
  const target = actionTargetText(input.contract, input.names);
  const refusedBy = (error: unknown): never => {
    // Refused by the ledger: nothing more is recorded, and the run ends.
    const refusal = runRefusalOf(error);
    if (refusal) refuse(refusal);
    throw error;
  };
  const records = createActionRecords({
    now,
    head: () => machine.state.ledger_head,
    persist: (inputs, summary) =>
      persistTransitions.executeWithOptions({ ...STORE_STEP, summary }, [inputs]).catch(refusedBy),
    landed: (head) => {
      machine = recorded(machine, head);
    },
    summaryOf: ({ event, actor, state }) =>
      recordSummary(event, actor?.principal_id ?? null, state, names),
  });
  // What the Web UI shows as the current details: refreshed on every status change, every
  // recorded approval and when the rule's wait is set, so `1 of 2` shows after the first of two.
  const showDetails = (): void => setCurrentDetails(actionCurrentDetails(machine.state, names));
  // A repair's child action: the repair follows its status (a closed parent is no matter).
  // Its workflow id names the repair's current run: after a reset of the repair, the run
  // that started this child is terminated, and the new run is the one that waits for it.
  const notifyParent = (status: ActionStatus): void => {
    if (!info.parent) return;
    if (!lean) deprecatePatch(SIGNAL_CURRENT_PARENT_RUN);
    getExternalWorkflowHandle(info.parent.workflowId)
      .signal(childActionStatusSignal, { action_id: machine.state.action_id, status })
      .catch(() => undefined);
  };
  const performEffect = (effect: ActionEffect): Promise<void> | null => {
    if (effect.kind === 'record') return records.record(effect);
    if (effect.kind === 'show_details') showDetails();
    else if (effect.kind === 'notify_parent') notifyParent(effect.status);
    // Executing in one activity, `executing` ends in the same workflow task as it begins:
    // the Web UI would never see it, so the search attribute waits for the outcome.
    else if (!(records.holding() && effect.status === 'executing')) {
      const pairs: SearchAttributeUpdatePair[] = [];
      if (effect.status) pairs.push({ key: ActionStatusKey, value: effect.status });
      if (effect.approvals_remaining !== undefined)
        pairs.push({ key: ApprovalsRemainingKey, value: effect.approvals_remaining });
      upsertSearchAttributes(pairs);
    }
    return null;
  };
  /** Takes a transition and performs its effects in order; settles when its records have. */
  const perform = (step: ActionStep): Promise<void> => {
    machine = step.machine;
    let settled = records.settled();
    for (const effect of step.effects) settled = performEffect(effect) ?? settled;
    return settled;
  };
  /** A transition an activity recorded already (the lean shape): its other effects, its head. */
  const performRecorded = (step: ActionStep, head: string): void => {
    machine = recorded(step.machine, head);
    for (const effect of step.effects) if (effect.kind !== 'record') void performEffect(effect);
  };
  /** The transition into `executing`, held when the lean shape executes in one activity. */
  const performExecuting = (step: ActionStep): Promise<void> =>
    records.holdWhile(executesInOne(), () => perform(step));
  const gate = createDecisionGate(input.action_id, () => machine.state.status);

  setHandler(actionStateQuery, () => machine.state);
  setHandler(planSettledUpdate, async () => {
    await condition(() => machine.state.status !== 'proposed');
    await records.settled();
    return machine.state;
  });
  // Approve, reject and execute: one handler, the machine tells what each decision does.
  const decide =
    (kind: ActionDecision['decision']) =>
    async (d: ActionDecisionInput): Promise<ActionState> => {
      const problem = gate.signatureProblem(d, kind);
      if (problem) {
        const refusal = { decision: kind, claimed_by: actorOf(d), problem, at: now() };
        const executionRecorded = records.afterExecution();
        if (executionRecorded) await executionRecorded;
        return perform(refused(machine, refusal)).then(() => {
          throw gate.unsigned(problem);
        });
      }
      if (d.principal_name) names.principals[d.principal_id] = d.principal_name;
      const step = decided(machine, decisionOf(kind, d, now()), now());
      await (kind === 'execute' ? performExecuting(step) : perform(step));
      return machine.state;
    };
  for (const [update, kind] of DECISION_UPDATES) {
    const refusalOf = (d: ActionDecisionInput) =>
      decisionRefusal(machine.state, kind, d, Date.now());
    setHandler(update, decide(kind), { validator: gate.validator(kind, refusalOf) });
  }

  // The start set ActionStatus=proposed. Nothing is recorded before the worker has checked
  // the api's signature on the proposal: a forged start leaves no action the api would show.
  showDetails();
  const openedAt = now();
  const opened = await openActionProposal
    .executeWithOptions(
      { ...STORE_STEP, summary: actionStepSummary.checkAndRecordProposal(machine.state, target) },
      [input, { first_run_id: info.firstExecutionRunId, record_at: openedAt }],
    )
    .catch(refusedBy);
  if (!opened.trusted) {
    upsertSearchAttributes([{ key: ActionStatusKey, value: 'refused' }]);
    setCurrentDetails(refusedProposalDetails(opened.problem));
    throw ApplicationFailure.create({
      type: ACTION_ERRORS.unsignedProposal,
      message: `refused: ${opened.problem}`,
      nonRetryable: true,
    });
  }
  gate.trust(opened.accepted_keys);
  if (opened.recorded_head !== undefined) {
    lean = true;
    performRecorded(planned(machine, opened.plan, openedAt), opened.recorded_head);
  } else {
    // The proposal and the plan's outcome queue together, so one record takes both.
    await perform(planned(machine, opened.plan, now()));
  }
  if (!opened.plan.ok) return finish();

  // The approval window, then the execution window, both end at expires_at. Lean: one
  // durable timer for both, left running when the action ends first (the run's end drops
  // it); classic: a timer per wait, cancelled when the wait ends.
  const untilExpiry = (): number => Math.max(1, expiresAtMs - Date.now());
  const windowEnded = lean
    ? sleep(untilExpiry(), { summary: actionStepSummary.window(machine.state, expiresAtMs) }).then(
        () => false,
      )
    : null;
  const waitInWindow = (done: () => boolean, summary: string): Promise<boolean> =>
    windowEnded
      ? Promise.race([windowEnded, condition(done).then(() => true)])
      : condition(done, untilExpiry(), { summary });
  const awaited = await waitInWindow(
    () => machine.state.status !== 'awaiting_approval',
    actionStepSummary.approvalWait(machine.state, expiresAtMs),
  );
  if (!awaited) {
    await perform(expired(machine, 'approval', now()));
    return finish();
  }
  // Executing already: a reset to the task that took the approval reapplies the approve and
  // the execute in one task (the run it replaced accepted that execute, after the rule's
  // wait). The effect goes on; its own ledger check says whether this run may apply it.
  // Only a run found here calls the patch: histories that never were replay without it.
  const executingAlready = machine.state.status === 'executing';
  if (executingAlready && patched(EXECUTING_AT_APPROVAL)) return executeAndFinish();
  if (machine.state.status !== 'approved') return finish();
  // The rule's wait is a timer of its own, auto-executing or not: its firing moves the
  // workflow's clock past `executable_at`, which the execute validator reads (without it an
  // update's validator would see the time of the approval's task and refuse forever).
  void perform(executionScheduled(machine));
  const executableAt = machine.state.executable_at!;
  const untilExecutable = Date.parse(executableAt) - Date.now();
  if (untilExecutable > 0) {
    await sleep(Math.min(untilExecutable, untilExpiry()), {
      summary: actionStepSummary.ruleWait(executableAt),
    });
    if (Date.now() >= expiresAtMs) {
      await perform(expired(machine, 'execution', now()));
      return finish();
    }
    showDetails();
  }
  const executing = () => machine.state.status === 'executing';
  const autoExecute = executesByItself(machine.state, input.execute_when_approved);
  if (autoExecute && !executing()) {
    // Held, it settles only once the execution below has recorded it.
    const executingStep = performExecuting(executedByItself(machine, now()));
    if (records.heldCount() === 0) await executingStep;
  } else if (
    !autoExecute &&
    !(await waitInWindow(executing, actionStepSummary.executeWait(expiresAtMs))) &&
    // Lean: an execute taken in the task the window ended in holds its records; it goes on.
    !(lean && executing())
  ) {
    await perform(expired(machine, 'execution', now()));
    return finish();
  }
  return executeAndFinish();

  /** The effect of the action `executing` now, its outcome recorded; then the run's end. */
  async function executeAndFinish(): Promise<ActionState> {
    if (records.heldCount() > 0) {
      await executeInOne();
      return finish();
    }
    // After `executing` has landed: the effect's outcome then never races the execute
    // update's answer, whose order against the outcome's commands replay must see again.
    const startedAt = now();
    if (!lean) deprecatePatch(EFFECT_PLANS_ITSELF);
    await records.settled();
    try {
      const args = [{ state: copy(machine.state), plan: machine.state.dry_run! }] as const;
      const options = { ...EFFECT_STEP, summary: actionStepSummary.apply(machine.state, target) };
      const result =
        machine.state.action_kind === 'webhook.post'
          ? await applyExternalEffect.executeWithOptions(options, [...args])
          : await applyInternalEffect.executeWithOptions(options, [...args]);
      await perform(executionEnded(machine, { result }, startedAt, now()));
    } catch (error) {
      // Regular activities wrap the failure (ActivityFailure → cause); local ones may not.
      const failure =
        error instanceof ApplicationFailure ? error : (error as { cause?: unknown }).cause;
      const detail = failure instanceof ApplicationFailure ? failure : undefined;
      await perform(executionEnded(machine, failedOutcome(detail, error), startedAt, now()));
    }
    return finish();
  }

  /**
   * The lean execution in one local activity: the held transitions into `executing`, the
   * effect, and its outcome, recorded in order after every record before them.
   */
  async function executeInOne(): Promise<void> {
    const summary = actionStepSummary.executeAndRecord(machine.state, target);
    const startedAt = now();
    const done = await records.executeHeld((executing) =>
      executeRecorded
        .executeWithOptions({ ...STORE_STEP, summary }, [
          { machine: copy(machine), executing, started_at: startedAt },
        ])
        .catch(refusedBy),
    );
    const executed = recorded(machine, done.executing_head);
    performRecorded(executionEnded(executed, done.outcome, startedAt, done.finished_at), done.head);
  }

  async function finish(): Promise<ActionState> {
    await perform(refusalsFlushed(machine));
    await records.settled();
    await condition(allHandlersFinished);
    return machine.state;
  }
}
