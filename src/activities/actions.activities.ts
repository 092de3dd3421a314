import { ApplicationFailure, Context } from '@temporalio/activity';
import { ledgerDigest } from '../domain/actions/ledger-digest';
import { planAction, planDigestOf } from '../domain/actions/planner';
import type { Repos } from '../store';
import type { ActionLedgerEntry } from '../store/external-actions.repo';
import { diffSummary, listEntryOf } from '../domain/actions/action-views';
import { NOTIFICATION_EVENTS, type NotificationEvent } from '../domain/notifications/schemas';
import {
  ACTION_ERRORS,
  actionWorkflowId,
  proposalClaimOf,
  type ActionActor,
  type ActionContract,
  type ActionPlan,
  type ActionState,
  type ActionWorkflowInput,
} from '../workflows/shared';
import type { NotifiableEvent } from './notifications.activities';
import { restoreObject } from './restore-object';
import type { SecurityEvent, WorkerTrust } from './trust';
import { EXECUTION_FAILURES, postWebhook } from './webhook-post';

export { EXECUTION_FAILURES };

export interface ActionActivityDeps {
  repos: Pick<
    Repos,
    | 'externalActions'
    | 'actionInbox'
    | 'worldObjects'
    | 'worldHistory'
    | 'worldExternalState'
    | 'outbox'
  >;
  /** Tells subscribers about the transition (`action.<status>`), when one is wanted. */
  notify?: (event: NotifiableEvent) => Promise<number>;
  webhookAllowlist: readonly string[];
  webhookSigningSecret: string;
  webhookTimeoutMs: number;
  /** What trust is decided with: the worker's own keys (`src/activities/trust.ts`). */
  trust: Pick<WorkerTrust, 'authority' | 'acceptedSignerKeys' | 'reportSecurityEvent'>;
}

/** How an action's workflow opens: a trusted proposal and its dry run, or a refusal. */
export type OpenedProposal =
  | { trusted: true; accepted_keys: string[]; plan: ActionPlan }
  | { trusted: false; problem: string };

export interface RecordTransitionInput {
  state: ActionState;
  /** When it happened (the workflow's clock); the status's own time when absent. */
  at?: string;
  event: string;
  actor: ActionActor | null;
  detail?: Record<string, unknown>;
}

/** The ledger entry of a transition, chained to `prevDigest`, before its digest. */
function ledgerBodyOf(
  input: RecordTransitionInput,
  prevDigest: string | null,
): Omit<ActionLedgerEntry, 'digest'> {
  const { state } = input;
  return {
    _id: `${state.action_id}:${state.seq}`,
    action_id: state.action_id,
    seq: state.seq,
    at: input.at ?? state.updated_at,
    event: input.event,
    status: state.status,
    action_kind: state.action_kind,
    shared_context_id: state.shared_context_id,
    actor: input.actor,
    detail: input.detail ?? {},
    prev_digest: prevDigest,
  };
}

/** Activities of the external-action workflow; each is idempotent under retries. */
export function createActionActivities(deps: ActionActivityDeps) {
  const { repos } = deps;
  /** Tells subscribers about a recorded transition, when its event is one they may want. */
  const notifyOf = async ({ state, event }: RecordTransitionInput): Promise<void> => {
    const name = `action.${event}`;
    if (!deps.notify || !NOTIFIED_ACTION_EVENTS.has(name)) return;
    await deps.notify({
      event: name as NotificationEvent,
      event_id: `${state.action_id}:${state.seq}`,
      subject: { type: 'action', id: state.action_id },
      at: state.updated_at,
      data: actionNotice(state),
      action: {
        action_kind: state.action_kind,
        shared_context_id: state.shared_context_id,
        expires_at: state.expires_at,
      },
    });
  };
  /**
   * Appends the transitions, in order, to the action's hash-chained ledger (the first
   * chained to its state's `ledger_head`), then writes the projection of the last one and
   * tells subscribers of each; returns the new ledger head (the stored one, on a retry).
   */
  async function recordActionTransitions(inputs: RecordTransitionInput[]): Promise<string> {
    const last = inputs[inputs.length - 1];
    if (!last) throw ApplicationFailure.nonRetryable('no transition to record');
    for (const { state, event } of inputs) {
      const problem = deps.trust.authority.stateProblem(state);
      if (problem) await refuse('security.unsigned_record', state, problem, { event });
    }
    const entries: ActionLedgerEntry[] = [];
    let prevDigest = inputs[0].state.ledger_head;
    let fresh = true;
    for (const input of inputs) {
      const body = ledgerBodyOf(input, prevDigest);
      const written = await repos.externalActions.insertLedgerOnce({
        ...body,
        digest: ledgerDigest(body),
      });
      fresh &&= written.fresh;
      entries.push(written.stored);
      prevDigest = written.stored.digest;
    }
    const { action_id, ...rest } = last.state;
    await repos.externalActions.projectTransitions(
      entries,
      {
        ...rest,
        _id: action_id,
        approved_by: last.state.approvals.map((approval) => approval.principal_id),
        eligible: eligibleTokens(last.state.rule),
      },
      fresh,
      // Only these statuses change the inbox (entering it, or the one way out of it).
      async (record) =>
        INBOX_STATUSES.has(record.status) &&
        repos.actionInbox.project(listEntryOf(record), {
          fresh,
          arriving: inputs.some((input) => input.event === 'awaiting_approval'),
        }),
    );
    for (const input of inputs) await notifyOf(input);
    return prevDigest!;
  }

  /** Reports the refusal, then fails the activity for good (nothing was written). */
  async function refuse(
    kind: SecurityEvent['kind'],
    state: Pick<ActionState, 'action_id' | 'status'>,
    problem: string,
    detail: Record<string, unknown> = {},
  ): Promise<never> {
    const info = Context.current().info;
    await deps.trust.reportSecurityEvent({
      kind,
      message: `refused for action ${state.action_id}: ${problem}`,
      dedup_key: `${info.workflowExecution.workflowId}/${info.workflowExecution.runId}/${info.activityId}`,
      detail: {
        action_id: state.action_id,
        status: state.status,
        workflow_id: info.workflowExecution.workflowId,
        run_id: info.workflowExecution.runId,
        problem,
        ...detail,
      },
    });
    throw ApplicationFailure.nonRetryable(problem, ACTION_ERRORS.unsignedProposal);
  }

  /**
   * A signed proposal started again under a new workflow (after its first was terminated)
   * is a replay: the action it names was opened by another run chain. A reset keeps its
   * chain's first run id, so a reset run may open it again.
   */
  async function replayProblem(actionId: string, firstRunId: string): Promise<string | null> {
    const opened = await repos.externalActions.findById(actionId);
    return opened && opened.run_id !== firstRunId
      ? `action ${actionId} was opened by workflow run ${opened.run_id} already (a replayed proposal)`
      : null;
  }

  /** The dry-run plan of a contract against the world as it is now. */
  async function planActionContract(
    contract: ActionContract,
    options: { actionId?: string } = {},
  ): Promise<ActionPlan> {
    const objectId = contract.target.world_object_ref;
    const object =
      contract.action_kind.startsWith('world.') && objectId
        ? await repos.worldObjects.findById(objectId)
        : null;
    const plan = planAction(contract, {
      object,
      webhookAllowlist: deps.webhookAllowlist,
      now: new Date().toISOString(),
    });
    const applied = options.actionId && object?.last_action_id === options.actionId;
    return applied ? { ...plan, already_applied: true } : plan;
  }

  return {
    /**
     * The first step of every action workflow: its start input must be a proposal the api
     * signed (with a key the worker accepts). A refused one is reported and nothing else
     * happens; a trusted one is dry-run, and the keys decisions are checked with come back.
     */
    async openActionProposal(
      input: ActionWorkflowInput,
      run: { first_run_id: string },
    ): Promise<OpenedProposal> {
      const info = Context.current().info;
      const { workflowId } = info.workflowExecution;
      const problem =
        deps.trust.authority.proposalProblem(
          input.proposal_signature && { ...proposalClaimOf(input), ...input.proposal_signature },
        ) ??
        (workflowId === actionWorkflowId(input.action_id)
          ? null
          : `workflow ${workflowId} is not the workflow of action ${input.action_id}`) ??
        (await replayProblem(input.action_id, run.first_run_id));
      if (problem) {
        await deps.trust.reportSecurityEvent({
          kind: 'security.unsigned_proposal',
          message: `refused to run workflow ${info.workflowExecution.workflowId}: ${problem}`,
          dedup_key: `${info.workflowExecution.workflowId}/${info.workflowExecution.runId}`,
          detail: {
            action_id: input.action_id,
            workflow_id: info.workflowExecution.workflowId,
            run_id: info.workflowExecution.runId,
            claimed_proposer: input.proposed_by,
            problem,
          },
        });
        return { trusted: false, problem };
      }
      return {
        trusted: true,
        accepted_keys: [...deps.trust.acceptedSignerKeys],
        plan: await planActionContract(input.contract),
      };
    },

    planActionContract,

    recordActionTransitions,

    /**
     * Applies the effect once: a retry recognises its own earlier success. Nothing the
     * workflow hands over is believed: the effect re-plans the signed contract and acts only
     * when the api's signatures authorise that very plan (`ActionAuthority.executionProblem`).
     */
    async applyAction(input: {
      state: ActionState;
      plan: ActionPlan;
    }): Promise<Record<string, unknown>> {
      const { contract } = input.state.proposal;
      const state: ActionState = { ...input.state, ...contract };
      const replan = await planActionContract(contract, { actionId: state.action_id });
      // Its own change already applied (a retry after a lost answer): the approved plan.
      const plan = replan.already_applied ? input.plan : replan;
      if (!replan.already_applied && replan.plan_digest !== input.plan.plan_digest) {
        throw ApplicationFailure.nonRetryable(
          `the world changed since the plan (${replan.plan_digest}, approved ${input.plan.plan_digest})`,
          EXECUTION_FAILURES.planDrift,
        );
      }
      const problem =
        deps.trust.authority.executionProblem(input.state, plan.plan_digest) ??
        (planDigestOf(contract, plan) === plan.plan_digest
          ? null
          : 'the plan handed to the effect is not the plan its digest names') ??
        (plan.ok ? null : `policy refuses it: ${plan.policy.reasons.join('; ')}`);
      if (problem) await refuse('security.unsigned_effect', state, problem);
      const now = new Date().toISOString();
      switch (state.action_kind) {
        case 'world.update_object': {
          const diff = plan.diff!;
          const patch = state.parameters['patch'] as Record<string, unknown>;
          let applied = await repos.worldObjects.patchAtVersion(
            diff.object_id,
            diff.base_version,
            patch,
            state.action_id,
            now,
          );
          if (!applied) {
            const object = await repos.worldObjects.findById(diff.object_id);
            if (object?.last_action_id !== state.action_id) {
              throw ApplicationFailure.nonRetryable(
                `world object ${diff.object_id} changed since the plan (version ${object?.version ?? 'gone'}, planned on ${diff.base_version})`,
                EXECUTION_FAILURES.planDrift,
              );
            }
            applied = true;
          }
          await repos.worldHistory.appendOnce({
            _id: `evt_${state.action_id.slice(4)}`,
            kind: 'object.updated',
            object_id: diff.object_id,
            at: now,
            change: {
              action_id: state.action_id,
              changes: diff.changes,
              version: diff.base_version + 1,
            },
          });
          return { object_id: diff.object_id, version: diff.base_version + 1 };
        }
        case 'world.restore_object':
          return restoreObject(repos, state, now);
        case 'webhook.post':
          return postWebhook(deps, state);
        case 'notify': {
          const message = await repos.outbox.putOnce({
            _id: state.action_id,
            channel: (state.parameters['channel'] as string | undefined) ?? 'default',
            message: state.parameters['message'] as string,
            shared_context_id: state.shared_context_id,
            created_at: now,
          });
          return { outbox_id: message._id, channel: message.channel };
        }
      }
    },
  };
}

const INBOX_STATUSES = new Set<ActionState['status']>([
  'awaiting_approval',
  'approved',
  'rejected',
  'expired',
]);

const NOTIFIED_ACTION_EVENTS = new Set<string>(
  NOTIFICATION_EVENTS.filter((event) => event.startsWith('action.')),
);

/** What a notification about an action says: enough to decide whether to look. */
function actionNotice(state: ActionState): Record<string, unknown> {
  return {
    action_id: state.action_id,
    action_kind: state.action_kind,
    status: state.status,
    target: state.target,
    reason: state.reason,
    diff_summary: diffSummary(state),
    proposed_by: state.proposed_by.principal_id,
    approvals: state.approvals.length,
    required_approvals: state.bounds.required_approvals,
    rule_id: state.rule?.rule_id ?? null,
    shared_context_id: state.shared_context_id,
    expires_at: state.expires_at,
    workflow_id: state.workflow_id,
  };
}

/** Who may decide under the rule, as tokens the inbox query matches with one `$in`. */
export function eligibleTokens(rule: ActionState['rule']): string[] {
  if (!rule || (rule.approver_roles.length === 0 && rule.approver_principals.length === 0)) {
    return ['*'];
  }
  return [
    ...rule.approver_principals.map((id) => `principal:${id}`),
    ...rule.approver_roles.map((role) => `role:${role}`),
  ];
}
