import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
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
import type { RecordTransitionInput } from '../activities/external-actions.activities';
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
  effectApplied,
  effectFailed,
  executedByItself,
  executesByItself,
  executionScheduled,
  expired,
  expiresAtMsOf,
  openAction,
  planRefused,
  planned,
  recorded,
  refusalsFlushed,
  refused,
  replanned,
  type ActionEffect,
  type ActionStep,
  type RecordEffect,
} from './action-machine';
import { actionTargetText } from './action-text';
import { decisionRefusal } from './action-validation';
import { createDecisionGate } from './decision-gate';
import {
  ACTION_ERRORS,
  EXECUTION_FAILURES,
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
  type PlanRefusal,
} from './external-action.contract';
import { childActionStatusSignal } from './repair.contract';
import { ActionStatusKey, ApprovalsRemainingKey } from './shared.contract';

// `persistTransitions` is the `recordActionTransitions` activity (its registered name).
const {
  openActionProposal,
  planActionContract,
  recordActionTransitions: persistTransitions,
} = proxyLocalActivities<ActionActivities>(STORE_STEP);

// Webhooks leave the process (a regular activity); our own store's effects are local.
const { applyAction: applyExternalEffect } = proxyActivities<ActionActivities>(EFFECT_STEP);
const { applyAction: applyInternalEffect } = proxyLocalActivities<ActionActivities>(EFFECT_STEP);

/** Patch: a child action signals its repair's current run, not the run that started it. */
const SIGNAL_CURRENT_PARENT_RUN = 'child-signals-current-parent-run';

/**
 * Patch: the effect re-plans by itself (it always did, to trust nothing it is handed) and
 * says why it would not apply, so the workflow no longer re-plans in a local activity of
 * its own first: one local activity and one workflow activation fewer per execution. The
 * ledger records a refused plan as before (`planRefused`).
 */
const EFFECT_PLANS_ITSELF = 'effect-plans-itself';

/** The failure types the effect refuses a plan made again with, and what each records. */
const PLAN_REFUSALS: Record<string, 'plan_drift' | 'policy_denied'> = {
  [EXECUTION_FAILURES.planDrift]: 'plan_drift',
  [EXECUTION_FAILURES.policyDenied]: 'policy_denied',
};

/** The decision updates, in the order their handlers are set. */
const DECISION_UPDATES = [
  [approveActionUpdate, 'approve'],
  [rejectActionUpdate, 'reject'],
  [executeActionUpdate, 'execute'],
] as const;

const now = (): string => new Date().toISOString();

/** A deep copy that the workflow sandbox can always make (plain JSON state). */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

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

  // Names for what people read (the api resolved them at the start; deciders bring theirs).
  const names: ActionNames = {
    ...input.names,
    principals: input.names?.requester
      ? { [input.proposed_by.principal_id]: input.names.requester }
      : {},
  };
  const target = actionTargetText(input.contract, input.names);
  // Records run one after another, so the ledger chain and projection follow the state.
  // Transitions queue up while a record runs and the next record takes them all at once:
  // one local activity, one projection write and one witness slot for the batch.
  const queued: Array<RecordTransitionInput & { summary: string }> = [];
  let recording: Promise<void> = Promise.resolve();
  const record = ({ state, event, actor, detail }: RecordEffect): Promise<void> => {
    const summary = recordSummary(event, actor?.principal_id ?? null, state, names);
    queued.push({ state: copy(state), at: now(), event, actor, detail, summary });
    recording = recording.then(async () => {
      const batch = queued.splice(0, queued.length);
      if (batch.length === 0) return; // an earlier record took it
      batch[0].state.ledger_head = machine.state.ledger_head;
      const inputs = batch.map(({ summary: _summary, ...input }) => input);
      const options = { ...STORE_STEP, summary: batch.map((b) => b.summary).join('; ') };
      const head = await persistTransitions
        .executeWithOptions(options, [inputs])
        .catch((error: unknown) => {
          // Refused by the ledger: nothing more is recorded, and the run ends.
          const refusal = runRefusalOf(error);
          if (refusal) refuse(refusal);
          throw error;
        });
      machine = recorded(machine, head);
    });
    return recording;
  };
  // What the Web UI shows as the current details: refreshed on every status change, every
  // recorded approval and when the rule's wait is set, so `1 of 2` shows after the first of two.
  const showDetails = (): void => setCurrentDetails(actionCurrentDetails(machine.state, names));
  // A repair's child action: the repair follows its status (a closed parent is no matter).
  // Its workflow id names the repair's current run: after a reset of the repair, the run
  // that started this child is terminated, and the new run is the one that waits for it.
  const notifyParent = (status: ActionStatus): void => {
    if (!info.parent) return;
    const parent = patched(SIGNAL_CURRENT_PARENT_RUN)
      ? getExternalWorkflowHandle(info.parent.workflowId)
      : getExternalWorkflowHandle(info.parent.workflowId, info.parent.runId);
    parent
      .signal(childActionStatusSignal, { action_id: machine.state.action_id, status })
      .catch(() => undefined);
  };
  const performEffect = (effect: ActionEffect): Promise<void> | null => {
    if (effect.kind === 'record') return record(effect);
    if (effect.kind === 'show_details') showDetails();
    else if (effect.kind === 'notify_parent') notifyParent(effect.status);
    else {
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
    let settled = recording;
    for (const effect of step.effects) settled = performEffect(effect) ?? settled;
    return settled;
  };
  const gate = createDecisionGate(input.action_id, () => machine.state.status);

  setHandler(actionStateQuery, () => machine.state);
  setHandler(planSettledUpdate, async () => {
    await condition(() => machine.state.status !== 'proposed');
    await recording;
    return machine.state;
  });
  // Approve, reject and execute: one handler, the machine tells what each decision does.
  const decide =
    (kind: ActionDecision['decision']) =>
    async (d: ActionDecisionInput): Promise<ActionState> => {
      const problem = gate.signatureProblem(d, kind);
      if (problem) {
        const refusal = { decision: kind, claimed_by: actorOf(d), problem, at: now() };
        return perform(refused(machine, refusal)).then(() => {
          throw gate.unsigned(problem);
        });
      }
      if (d.principal_name) names.principals[d.principal_id] = d.principal_name;
      await perform(decided(machine, decisionOf(kind, d, now()), now()));
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
  const opened = await openActionProposal
    .executeWithOptions(
      { ...STORE_STEP, summary: actionStepSummary.checkProposal(machine.state, target) },
      [input, { first_run_id: info.firstExecutionRunId }],
    )
    .catch((error: unknown) => {
      const refusal = runRefusalOf(error);
      if (refusal) refuse(refusal);
      throw error;
    });
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
  // The proposal and the plan's outcome queue together, so one record takes both.
  await perform(planned(machine, opened.plan, now()));
  if (!opened.plan.ok) return finish();

  // The approval window, then the execution window, both end at expires_at (durable timers).
  const untilExpiry = (): number => Math.max(1, expiresAtMs - Date.now());
  const awaited = await condition(
    () => machine.state.status !== 'awaiting_approval',
    untilExpiry(),
    { summary: actionStepSummary.approvalWait(machine.state, expiresAtMs) },
  );
  if (!awaited) {
    await perform(expired(machine, 'approval', now()));
    return finish();
  }
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
    await perform(executedByItself(machine, now()));
  } else if (
    !autoExecute &&
    !(await condition(executing, untilExpiry(), {
      summary: actionStepSummary.executeWait(expiresAtMs),
    }))
  ) {
    await perform(expired(machine, 'execution', now()));
    return finish();
  }

  const startedAt = now();
  let plan = machine.state.dry_run!;
  if (patched(EFFECT_PLANS_ITSELF)) {
    // After `executing` has landed: the effect's outcome then never races the execute
    // update's answer, whose order against the outcome's commands replay must see again.
    await recording;
  } else {
    const replan = await planActionContract.executeWithOptions(
      { ...STORE_STEP, summary: actionStepSummary.replan(machine.state, target) },
      [input.contract, { actionId: machine.state.action_id }],
    );
    const next = replanned(machine, replan, startedAt, now());
    if ('failed' in next) {
      await perform(next.failed);
      return finish();
    }
    plan = next.apply;
  }
  try {
    const args = [{ state: copy(machine.state), plan }] as const;
    const options = { ...EFFECT_STEP, summary: actionStepSummary.apply(machine.state, target) };
    const result =
      machine.state.action_kind === 'webhook.post'
        ? await applyExternalEffect.executeWithOptions(options, [...args])
        : await applyInternalEffect.executeWithOptions(options, [...args]);
    await perform(effectApplied(machine, result, startedAt, now()));
  } catch (error) {
    // Regular activities wrap the failure (ActivityFailure → cause); local ones may not.
    const failure =
      error instanceof ApplicationFailure ? error : (error as { cause?: unknown }).cause;
    const detail = failure instanceof ApplicationFailure ? failure : undefined;
    const message = detail?.message ?? String(error);
    const refusal = detail?.details?.[0] as PlanRefusal | undefined;
    const refused = detail?.type ? PLAN_REFUSALS[detail.type] : undefined;
    await perform(
      refused && refusal?.replanned_digest
        ? planRefused(machine, refused, refusal, startedAt, now())
        : effectFailed(machine, { type: detail?.type, message }, startedAt, now()),
    );
  }
  return finish();

  async function finish(): Promise<ActionState> {
    await perform(refusalsFlushed(machine));
    await recording;
    await condition(allHandlersFinished);
    return machine.state;
  }
}
