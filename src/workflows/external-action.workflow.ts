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
import type { ActionActivities } from '../activities';
import type { RecordTransitionInput } from '../activities/actions.activities';
import { clock } from '../lib/workflow-text';
import {
  ACTION_EFFECT_STEP as EFFECT_STEP,
  ACTION_STORE_STEP as STORE_STEP,
} from './activity-options';
import { actionCurrentDetails, recordSummary, type ActionNames } from './action-details';
import { actionTargetText } from './action-text';
import { refuseEarlyExecute, refuseRepeatApproval, validateDecider } from './action-validation';
import { createDecisionGate } from './decision-gate';
import {
  ACTION_ERRORS,
  ActionStatusKey,
  ApprovalsRemainingKey,
  actionStateQuery,
  approveActionUpdate,
  childActionStatusSignal,
  executeActionUpdate,
  planSettledUpdate,
  proposalClaimOf,
  rejectActionUpdate,
  type ActionActor,
  type ActionDecisionInput,
  type ActionState,
  type ActionStatus,
  type ActionWorkflowInput,
} from './shared';

const { openActionProposal, planActionContract, recordActionTransitions } =
  proxyLocalActivities<ActionActivities>(STORE_STEP);

// Webhooks leave the process (a regular activity); our own store's effects are local.
const { applyAction: applyExternalEffect } = proxyActivities<ActionActivities>(EFFECT_STEP);
const { applyAction: applyInternalEffect } = proxyLocalActivities<ActionActivities>(EFFECT_STEP);

/** Patch: a child action signals its repair's current run, not the run that started it. */
const SIGNAL_CURRENT_PARENT_RUN = 'child-signals-current-parent-run';

const now = (): string => new Date().toISOString();
/** Who a ledger entry names as its actor (the signed decision goes in its detail). */
const actorOf = (d: ActionDecisionInput): ActionActor => ({
  principal_id: d.principal_id,
  key_id: d.key_id,
});

/** A deep copy that the workflow sandbox can always make (plain JSON state). */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * One approval-gated outbound action, from proposal to its final status. The workflow is
 * the single writer of the action's status: every transition goes to the hash-chained
 * ledger and the MongoDB projection through an activity, in order. Decisions arrive as
 * validated updates, so a caller learns at once whether its decision was accepted; the
 * approval window is a durable timer.
 */
export async function externalActionWorkflow(input: ActionWorkflowInput): Promise<ActionState> {
  const info = workflowInfo();
  const expiresAtMs =
    Date.parse(input.created_at) + input.contract.bounds.expires_in_seconds * 1000;
  const state: ActionState = {
    ...input.contract,
    action_id: input.action_id,
    status: 'proposed',
    status_timestamps: { proposed: input.created_at },
    proposed_by: input.proposed_by,
    approvals: [],
    decisions: [],
    dry_run: null,
    execution: null,
    expires_at: new Date(expiresAtMs).toISOString(),
    workflow_id: info.workflowId,
    // The run recording: after a reset, the new run's (the old one named the first run's).
    run_id: info.runId,
    first_run_id: info.firstExecutionRunId,
    created_at: input.created_at,
    updated_at: input.created_at,
    seq: 0,
    ledger_head: null,
    refused_decisions: 0,
    rule: input.rule ?? null,
    executable_at: null,
    proposal: { ...proposalClaimOf(input), ...input.proposal_signature! },
  };

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
  const record = (
    event: string,
    actor: ActionActor | null,
    detail?: Record<string, unknown>,
  ): Promise<void> => {
    state.seq += 1;
    const summary = recordSummary(event, actor?.principal_id ?? null, state, names);
    queued.push({ state: copy(state), at: now(), event, actor, detail, summary });
    recording = recording.then(async () => {
      const batch = queued.splice(0, queued.length);
      if (batch.length === 0) return; // an earlier record took it
      batch[0].state.ledger_head = state.ledger_head;
      const inputs = batch.map(({ summary: _summary, ...input }) => input);
      const options = { ...STORE_STEP, summary: batch.map((b) => b.summary).join('; ') };
      state.ledger_head = await recordActionTransitions.executeWithOptions(options, [inputs]);
    });
    return recording;
  };
  const moveTo = (
    status: ActionStatus,
    actor: ActionActor | null,
    detail?: Record<string, unknown>,
  ): Promise<void> => {
    // Refusals still unrecorded go into the ledger before the status they happened under ends.
    void gate.recordRefusalAggregate();
    const at = now();
    state.status = status;
    state.status_timestamps[status] = at;
    state.updated_at = at;
    upsertSearchAttributes([
      { key: ActionStatusKey, value: status },
      { key: ApprovalsRemainingKey, value: remaining() },
    ]);
    showDetails();
    // A repair's child action: the repair follows its status (a closed parent is no matter).
    // Its workflow id names the repair's current run: after a reset of the repair, the run
    // that started this child is terminated, and the new run is the one that waits for it.
    if (info.parent) {
      const parent = patched(SIGNAL_CURRENT_PARENT_RUN)
        ? getExternalWorkflowHandle(info.parent.workflowId)
        : getExternalWorkflowHandle(info.parent.workflowId, info.parent.runId);
      parent
        .signal(childActionStatusSignal, { action_id: state.action_id, status })
        .catch(() => undefined);
    }
    return record(status, actor, detail);
  };
  const remaining = (): number =>
    Math.max(0, state.bounds.required_approvals - state.approvals.length);
  // What the Web UI shows as the current details: refreshed on every status change, every
  // recorded approval and when the rule's wait is set, so `1/2` shows after the first of two.
  const showDetails = (): void => setCurrentDetails(actionCurrentDetails(state, names));
  // A durable timer, named for the history: "wait for approvals until 2026-11-24 14:05Z".
  const waitUntil = (done: () => boolean, ms: number, summary: string) =>
    condition(done, ms, { summary });
  const gate = createDecisionGate(state, record, () => recording, names);
  const { decision, refusalOf, signedValidator } = gate;

  setHandler(actionStateQuery, () => state);
  setHandler(planSettledUpdate, async () => {
    await condition(() => state.status !== 'proposed');
    await recording;
    return state;
  });
  setHandler(
    approveActionUpdate,
    async (d: ActionDecisionInput) => {
      const refused = refusalOf(d, 'approve');
      if (refused) return refused;
      const approval = decision('approve', d);
      state.approvals.push(approval);
      state.decisions.push(approval);
      if (state.approvals.length >= state.bounds.required_approvals)
        await moveTo('approved', actorOf(d), { reason: approval.reason, decision: approval });
      else {
        upsertSearchAttributes([{ key: ApprovalsRemainingKey, value: remaining() }]);
        showDetails();
        await record('approval_recorded', actorOf(d), {
          reason: approval.reason,
          decision: approval,
        });
      }
      return state;
    },
    {
      validator: signedValidator('approve', (d: ActionDecisionInput) => {
        validateDecider(state, d, 'approve');
        refuseRepeatApproval(state, d);
      }),
    },
  );
  setHandler(
    rejectActionUpdate,
    async (d: ActionDecisionInput) => {
      const refused = refusalOf(d, 'reject');
      if (refused) return refused;
      const rejection = decision('reject', d);
      state.decisions.push(rejection);
      await moveTo('rejected', actorOf(d), { reason: rejection.reason, decision: rejection });
      return state;
    },
    { validator: signedValidator('reject', (d) => validateDecider(state, d, 'reject')) },
  );
  setHandler(
    executeActionUpdate,
    async (d: ActionDecisionInput) => {
      const refused = refusalOf(d, 'execute');
      if (refused) return refused;
      const execution = decision('execute', d);
      state.decisions.push(execution);
      await moveTo('executing', actorOf(d), { reason: d.reason ?? null, decision: execution });
      return state;
    },
    { validator: signedValidator('execute', () => refuseEarlyExecute(state)) },
  );

  // The start set ActionStatus=proposed. Nothing is recorded before the worker has checked
  // the api's signature on the proposal: a forged start leaves no action the api would show.
  showDetails();
  const opened = await openActionProposal.executeWithOptions(
    {
      ...STORE_STEP,
      summary: `check the api's signature on the proposal, dry-run ${state.action_kind} → ${target}`,
    },
    [input, { first_run_id: info.firstExecutionRunId }],
  );
  if (!opened.trusted) {
    upsertSearchAttributes([{ key: ActionStatusKey, value: 'refused' }]);
    setCurrentDetails(`**Refused:** ${opened.problem}. Nothing was recorded and nothing done.`);
    throw ApplicationFailure.create({
      type: ACTION_ERRORS.unsignedProposal,
      message: `refused: ${opened.problem}`,
      nonRetryable: true,
    });
  }
  gate.trust(opened.accepted_keys);
  state.dry_run = opened.plan;
  // Not awaited: the outcome's record below queues beside it, so one record takes both.
  void record('proposed', state.proposed_by, { reason: state.reason, proposal: state.proposal });
  if (!state.dry_run.ok) {
    await moveTo('dry_run_failed', null, { reasons: state.dry_run.policy.reasons });
    return finish();
  }
  await moveTo('awaiting_approval', null, { plan_digest: state.dry_run.plan_digest });

  // The approval window, then the execution window, both end at expires_at (durable timers).
  const untilExpiry = (): number => Math.max(1, expiresAtMs - Date.now());
  const awaited = await waitUntil(
    () => state.status !== 'awaiting_approval',
    untilExpiry(),
    `wait for ${state.bounds.required_approvals} approval(s) until the window ends at ${clock(expiresAtMs)}`,
  );
  if (!awaited) {
    await moveTo('expired', null, { window: 'approval' });
    return finish();
  }
  if (state.status !== 'approved') return finish();
  // The rule's wait: a durable timer from approval; execution may not start before it ends.
  const waitMs = (state.rule?.wait_seconds ?? 0) * 1000;
  state.executable_at = new Date(
    Date.parse(state.status_timestamps.approved!) + waitMs,
  ).toISOString();
  // The wait is a timer of its own, auto-executing or not: its firing moves the workflow's
  // clock past `executable_at`, which the execute validator reads (without it an update's
  // validator would see the time of the approval's task and refuse forever).
  const executing = () => state.status === 'executing';
  const untilExecutable = Date.parse(state.executable_at) - Date.now();
  showDetails();
  if (untilExecutable > 0) {
    await sleep(Math.min(untilExecutable, untilExpiry()), {
      summary: `wait for the approval rule's wait to end at ${clock(state.executable_at)}`,
    });
    if (Date.now() >= expiresAtMs) {
      await moveTo('expired', null, { window: 'execution' });
      return finish();
    }
    showDetails();
  }
  const autoExecute = state.rule?.auto_execute || input.execute_when_approved;
  if (autoExecute && !executing()) {
    state.decisions.push({
      decision: 'execute',
      principal_id: 'auto',
      key_id: 'auto',
      reason: state.rule?.auto_execute
        ? `auto_execute under approval rule ${state.rule.rule_id}`
        : 'executes once approved, as its proposer (a repair) asked',
      plan_digest: null,
      at: now(),
    });
    await moveTo('executing', null, { auto_execute: true, rule_id: state.rule?.rule_id ?? null });
  } else if (
    !autoExecute &&
    !(await waitUntil(
      executing,
      untilExpiry(),
      `wait for a call to execute until ${clock(expiresAtMs)}`,
    ))
  ) {
    await moveTo('expired', null, { window: 'execution' });
    return finish();
  }

  const startedAt = now();
  const replan = await planActionContract.executeWithOptions(
    { ...STORE_STEP, summary: `re-plan ${state.action_kind} → ${target} before executing` },
    [input.contract, { actionId: state.action_id }],
  );
  // Its own change already applied: apply the approved plan again, a no-op that answers it.
  const plan = replan.already_applied ? state.dry_run : replan;
  if (!replan.already_applied && (replan.plan_digest !== state.dry_run.plan_digest || !replan.ok)) {
    const reason = replan.ok ? 'plan_drift' : 'policy_denied';
    state.execution = {
      outcome: 'failed',
      reason,
      result: { replanned_digest: replan.plan_digest, reasons: replan.policy.reasons },
      started_at: startedAt,
      finished_at: now(),
    };
    await moveTo('failed', null, { reason });
    return finish();
  }
  try {
    const args = [{ state: copy(state), plan }] as const;
    const summary = `apply ${state.action_kind} → ${target}`;
    const result =
      state.action_kind === 'webhook.post'
        ? await applyExternalEffect.executeWithOptions({ ...EFFECT_STEP, summary }, [...args])
        : await applyInternalEffect.executeWithOptions({ ...EFFECT_STEP, summary }, [...args]);
    state.execution = {
      outcome: 'executed',
      reason: null,
      result,
      started_at: startedAt,
      finished_at: now(),
    };
    await moveTo('executed', null, { result });
  } catch (error) {
    // Regular activities wrap the failure (ActivityFailure → cause); local ones may not.
    const failure =
      error instanceof ApplicationFailure ? error : (error as { cause?: unknown }).cause;
    const detail = failure instanceof ApplicationFailure ? failure : undefined;
    const reason = detail?.type === 'PlanDrift' ? 'plan_drift' : (detail?.message ?? String(error));
    state.execution = {
      outcome: 'failed',
      reason,
      result: { error: detail?.message ?? String(error) },
      started_at: startedAt,
      finished_at: now(),
    };
    await moveTo('failed', null, { reason });
  }
  return finish();

  async function finish(): Promise<ActionState> {
    await gate.recordRefusalAggregate();
    await recording;
    await condition(allHandlersFinished);
    return state;
  }
}
