import { proposalClaimOf } from './external-action.contract';
import { EXECUTION_FAILURES } from './external-action.contract';
import type {
  ActionActor,
  ActionDecision,
  ActionDecisionInput,
  ActionPlan,
  ActionState,
  ActionStatus,
  ActionWorkflowInput,
  PlanRefusal,
} from './external-action.contract';

/**
 * The action's lifecycle as a pure state machine (docs/actions.md "Lifecycle"): each
 * transition takes the machine and what happened and answers the next machine and the
 * effects the workflow performs, in this order. Nothing here reads a clock or calls
 * Temporal: the times come in as arguments, and `external-action.workflow.ts` turns the
 * effects into commands (search attributes, current details, the parent's signal, ledger
 * records). The order of effects is the order of the workflow's commands, which recorded
 * histories replay against: change it only behind a patch (docs/workflow-versioning.md).
 */

/**
 * Refused decisions recorded one by one in the ledger per action; past that they are
 * aggregated (`decisions_refused`: the count and the last one), so a flood of forged updates
 * grows the ledger by a few entries, never silently.
 */
export const MAX_RECORDED_REFUSALS = 20;

/** Refusals past `MAX_RECORDED_REFUSALS` not yet in the ledger, waiting for an aggregate entry. */
export interface RefusalTally {
  unrecorded: number;
  last: Record<string, unknown> | null;
  /** The refusal count at which the next aggregate entry is written. */
  next_aggregate_at: number;
}

export interface ActionMachine {
  state: ActionState;
  refusals: RefusalTally;
}

/** A ledger entry to record: the state as of this transition, under its own `seq`. */
export interface RecordEffect {
  kind: 'record';
  state: ActionState;
  event: string;
  actor: ActionActor | null;
  detail: Record<string, unknown>;
}

export type ActionEffect =
  | RecordEffect
  /** The search attributes, in this order: `ActionStatus` then `ApprovalsRemaining`. */
  | { kind: 'search_attributes'; status?: ActionStatus; approvals_remaining?: number }
  /** Refresh the current details the Web UI shows. */
  | { kind: 'show_details' }
  /** Tell the repair that started this action (if one did) the status it entered. */
  | { kind: 'notify_parent'; status: ActionStatus };

export interface ActionStep {
  machine: ActionMachine;
  effects: ActionEffect[];
}

/** A refused decision as the ledger keeps it. */
export interface Refusal {
  decision: ActionDecision['decision'];
  claimed_by: ActionActor;
  problem: string;
  at: string;
}

/** Where the workflow runs: its ids become part of the state. */
export interface ActionRun {
  workflow_id: string;
  run_id: string;
  first_run_id: string;
}

/** When the approval window, then the execution window, ends (epoch ms). */
export const expiresAtMsOf = (input: ActionWorkflowInput): number =>
  Date.parse(input.created_at) + input.contract.bounds.expires_in_seconds * 1000;

export const approvalsRemaining = (state: ActionState): number =>
  Math.max(0, state.bounds.required_approvals - state.approvals.length);

/** Who a ledger entry names as its actor (the signed decision goes in its detail). */
export const actorOf = (d: ActionActor): ActionActor => ({
  principal_id: d.principal_id,
  key_id: d.key_id,
});

/** The machine of a proposed action, before its proposal is checked. */
export function openAction(input: ActionWorkflowInput, run: ActionRun): ActionMachine {
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
    expires_at: new Date(expiresAtMsOf(input)).toISOString(),
    workflow_id: run.workflow_id,
    // The run recording: after a reset, the new run's (the old one named the first run's).
    run_id: run.run_id,
    first_run_id: run.first_run_id,
    created_at: input.created_at,
    updated_at: input.created_at,
    seq: 0,
    ledger_head: null,
    refused_decisions: 0,
    rule: input.rule ?? null,
    executable_at: null,
    proposal: { ...proposalClaimOf(input), ...input.proposal_signature! },
  };
  return {
    state,
    refusals: { unrecorded: 0, last: null, next_aggregate_at: MAX_RECORDED_REFUSALS + 1 },
  };
}

/** Builds steps: each `record` takes the next `seq`, so entries chain in the order recorded. */
function stepFrom(machine: ActionMachine) {
  let current = machine;
  const effects: ActionEffect[] = [];
  const builder = {
    update(change: (state: ActionState) => Partial<ActionState>) {
      current = { ...current, state: { ...current.state, ...change(current.state) } };
      return builder;
    },
    tally(refusals: RefusalTally) {
      current = { ...current, refusals };
      return builder;
    },
    record(event: string, actor: ActionActor | null, detail: Record<string, unknown>) {
      builder.update((s) => ({ seq: s.seq + 1 }));
      effects.push({ kind: 'record', state: current.state, event, actor, detail });
      return builder;
    },
    effect(effect: ActionEffect) {
      effects.push(effect);
      return builder;
    },
    /** Refusals not yet in the ledger, as one entry: how many, and the last one. */
    flushRefusals() {
      const { unrecorded, last } = current.refusals;
      if (unrecorded === 0) return builder;
      const count = current.state.refused_decisions ?? 0;
      builder.tally({ unrecorded: 0, last, next_aggregate_at: count * 2 });
      return builder.record('decisions_refused', null, {
        count,
        since_last_entry: unrecorded,
        last,
      });
    },
    /** Enters `status`: refusals still unrecorded go in before the status they happened under ends. */
    moveTo(
      status: ActionStatus,
      at: string,
      actor: ActionActor | null,
      detail: Record<string, unknown>,
    ) {
      builder.flushRefusals();
      builder.update((s) => ({
        status,
        status_timestamps: { ...s.status_timestamps, [status]: at },
        updated_at: at,
      }));
      return builder
        .effect({
          kind: 'search_attributes',
          status,
          approvals_remaining: approvalsRemaining(current.state),
        })
        .effect({ kind: 'show_details' })
        .effect({ kind: 'notify_parent', status })
        .record(status, actor, detail);
    },
    state: (): ActionState => current.state,
    done: (): ActionStep => ({ machine: current, effects }),
  };
  return builder;
}

/**
 * The proposal checked and planned: it is recorded, then the plan's outcome decides
 * `awaiting_approval` or `dry_run_failed`.
 */
export function planned(machine: ActionMachine, plan: ActionPlan, at: string): ActionStep {
  const step = stepFrom(machine).update(() => ({ dry_run: plan }));
  const { proposed_by, reason, proposal } = machine.state;
  step.record('proposed', proposed_by, { reason, proposal });
  if (!plan.ok)
    return step.moveTo('dry_run_failed', at, null, { reasons: plan.policy.reasons }).done();
  return step.moveTo('awaiting_approval', at, null, { plan_digest: plan.plan_digest }).done();
}

/** The decision as the state keeps it, with the signature the effect checks again. */
export const decisionOf = (
  kind: ActionDecision['decision'],
  d: ActionDecisionInput,
  at: string,
): ActionDecision => ({
  decision: kind,
  principal_id: d.principal_id,
  key_id: d.key_id,
  reason: d.reason ?? null,
  plan_digest: d.plan_digest ?? null,
  at,
  role: d.role ?? null,
  decision_id: d.decision_id,
  signed_at: d.signed_at,
  signature: d.signature,
  signer_key: d.signer_key,
  ...(d.approver_assertion ? { approver_assertion: d.approver_assertion } : {}),
});

const STATUS_AFTER: Record<ActionDecision['decision'], ActionStatus> = {
  approve: 'approved',
  reject: 'rejected',
  execute: 'executing',
};

/**
 * A signed decision the validators let through: an approval short of the required count is
 * recorded as `approval_recorded`; the last one approves; a rejection rejects; an execute
 * starts executing.
 */
export function decided(machine: ActionMachine, decision: ActionDecision, at: string): ActionStep {
  const approving = decision.decision === 'approve';
  const step = stepFrom(machine).update((s) => ({
    ...(approving ? { approvals: [...s.approvals, decision] } : {}),
    decisions: [...s.decisions, decision],
  }));
  const actor = actorOf(decision);
  const detail = { reason: decision.reason, decision };
  const state = step.state();
  if (approving && state.approvals.length < state.bounds.required_approvals) {
    return step
      .effect({ kind: 'search_attributes', approvals_remaining: approvalsRemaining(state) })
      .effect({ kind: 'show_details' })
      .record('approval_recorded', actor, detail)
      .done();
  }
  return step.moveTo(STATUS_AFTER[decision.decision], at, actor, detail).done();
}

/**
 * A decision whose signature does not hold: counted, and recorded one by one up to
 * `MAX_RECORDED_REFUSALS`; past that, one aggregate entry each time the count doubles.
 */
export function refused(machine: ActionMachine, refusal: Refusal): ActionStep {
  const count = (machine.state.refused_decisions ?? 0) + 1;
  const step = stepFrom(machine).update(() => ({ refused_decisions: count }));
  if (count <= MAX_RECORDED_REFUSALS) {
    return step.record('decision_refused', null, { ...refusal }).done();
  }
  const { unrecorded, next_aggregate_at } = machine.refusals;
  step.tally({ unrecorded: unrecorded + 1, last: { ...refusal }, next_aggregate_at });
  return (count >= next_aggregate_at ? step.flushRefusals() : step).done();
}

/** Before the workflow ends: refusals not yet in the ledger go in as one entry. */
export const refusalsFlushed = (machine: ActionMachine): ActionStep =>
  stepFrom(machine).flushRefusals().done();

/** The window ended before the approvals (`approval`) or before execution (`execution`). */
export const expired = (
  machine: ActionMachine,
  window: 'approval' | 'execution',
  at: string,
): ActionStep => stepFrom(machine).moveTo('expired', at, null, { window }).done();

/** Approved: execution may start once the rule's wait after the approval is over. */
export function executionScheduled(machine: ActionMachine): ActionStep {
  const { rule, status_timestamps } = machine.state;
  const waitMs = (rule?.wait_seconds ?? 0) * 1000;
  const executableAt = new Date(Date.parse(status_timestamps.approved!) + waitMs).toISOString();
  return stepFrom(machine)
    .update(() => ({ executable_at: executableAt }))
    .effect({ kind: 'show_details' })
    .done();
}

/** True when nobody has to call execute: the rule auto-executes, or the proposer asked for it. */
export const executesByItself = (state: ActionState, executeWhenApproved?: boolean): boolean =>
  Boolean(state.rule?.auto_execute || executeWhenApproved);

/** The workflow executes the approved action by itself, as the rule or its proposer asked. */
export function executedByItself(machine: ActionMachine, at: string): ActionStep {
  const { rule } = machine.state;
  const decision: ActionDecision = {
    decision: 'execute',
    principal_id: 'auto',
    key_id: 'auto',
    reason: rule?.auto_execute
      ? `auto_execute under approval rule ${rule.rule_id}`
      : 'executes once approved, as its proposer (a repair) asked',
    plan_digest: null,
    at,
  };
  return stepFrom(machine)
    .update((s) => ({ decisions: [...s.decisions, decision] }))
    .moveTo('executing', at, null, { auto_execute: true, rule_id: rule?.rule_id ?? null })
    .done();
}

/** Execution ended: the effect's result, or why it failed. */
function finished(
  machine: ActionMachine,
  execution: Omit<NonNullable<ActionState['execution']>, 'started_at' | 'finished_at'>,
  startedAt: string,
  at: string,
): ActionStep {
  const { outcome, reason, result } = execution;
  const ended = { outcome, reason, result, started_at: startedAt, finished_at: at };
  const detail = outcome === 'executed' ? { result } : { reason };
  return stepFrom(machine)
    .update(() => ({ execution: ended }))
    .moveTo(outcome, at, null, detail)
    .done();
}

/**
 * The plan made again at the effect was not applied: the world moved (`plan_drift`) or
 * policy now denies it (`policy_denied`). The same entry whether the workflow re-planned
 * before the effect or the effect re-planned itself.
 */
export const planRefused = (
  machine: ActionMachine,
  reason: 'plan_drift' | 'policy_denied',
  refusal: PlanRefusal,
  startedAt: string,
  at: string,
): ActionStep =>
  finished(machine, { outcome: 'failed', reason, result: { ...refusal } }, startedAt, at);

/** The effect applied: `executed` with its result. */
export const effectApplied = (
  machine: ActionMachine,
  result: Record<string, unknown>,
  startedAt: string,
  at: string,
): ActionStep => finished(machine, { outcome: 'executed', reason: null, result }, startedAt, at);

/** The effect failed: `failed`, as `plan_drift` when the world moved under it. */
export function effectFailed(
  machine: ActionMachine,
  failure: { type?: string | null; message: string },
  startedAt: string,
  at: string,
): ActionStep {
  const reason = failure.type === EXECUTION_FAILURES.planDrift ? 'plan_drift' : failure.message;
  const result = { error: failure.message };
  return finished(machine, { outcome: 'failed', reason, result }, startedAt, at);
}

/** A transition as the record activity takes it (`RecordTransitionInput`). */
export interface TransitionRecord {
  state: ActionState;
  at: string;
  event: string;
  actor: ActionActor | null;
  detail: Record<string, unknown>;
}

/**
 * The records a step makes, taken at `at`, the first chained to `ledgerHead`: what the
 * workflow hands its record activity, and what an activity that records a step it computed
 * itself (the lean shape, docs/workflow-versioning.md) writes.
 */
export function transitionRecordsOf(
  step: ActionStep,
  at: string,
  ledgerHead: string | null,
): TransitionRecord[] {
  const records = step.effects
    .filter((effect): effect is RecordEffect => effect.kind === 'record')
    .map(({ state, event, actor, detail }) => ({ state: { ...state }, at, event, actor, detail }));
  if (records[0]) records[0].state.ledger_head = ledgerHead;
  return records;
}

/** A record landed: the ledger's newest digest for this action. */
export const recorded = (machine: ActionMachine, ledgerHead: string): ActionMachine => ({
  ...machine,
  state: { ...machine.state, ledger_head: ledgerHead },
});
