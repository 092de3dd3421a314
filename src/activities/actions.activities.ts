import { createHmac } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import stringify from 'safe-stable-stringify';
import { ledgerDigest } from '../domain/actions/ledger-digest';
import { planAction } from '../domain/actions/planner';
import type { Repos } from '../store';
import type { ActionLedgerEntry } from '../store/external-actions.repo';
import { diffSummary, listEntryOf } from '../domain/actions/action-views';
import { NOTIFICATION_EVENTS, type NotificationEvent } from '../domain/notifications/schemas';
import type { ActionActor, ActionContract, ActionPlan, ActionState } from '../workflows/shared';
import type { NotifiableEvent } from './notifications.activities';
import { restoreObject } from './restore-object';

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
}

export interface RecordTransitionInput {
  state: ActionState;
  event: string;
  actor: ActionActor | null;
  detail?: Record<string, unknown>;
}

/** Failure types execution can end with; none of them is retried. */
export const EXECUTION_FAILURES = {
  planDrift: 'PlanDrift',
  webhookRejected: 'WebhookRejected',
} as const;

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
    at: state.updated_at,
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

  return {
    /** The dry-run plan of a contract against the world as it is now. */
    async planActionContract(
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
    },

    /**
     * Appends the transition to the action's hash-chained ledger and writes the state
     * projection; returns the new ledger head (the stored one, on a retry). Kept for action
     * workflows that started before records were batched (their histories call it).
     */
    async recordActionTransition(input: RecordTransitionInput): Promise<string> {
      return recordActionTransitions([input]);
    },

    recordActionTransitions,

    /** Applies the effect once: a retry recognises its own earlier success. */
    async applyAction(input: {
      state: ActionState;
      plan: ActionPlan;
    }): Promise<Record<string, unknown>> {
      const { state, plan } = input;
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
        case 'webhook.post': {
          const url = state.target.url!;
          const text = stringify(state.parameters['body'] ?? state.parameters) ?? 'null';
          const signature = createHmac('sha256', deps.webhookSigningSecret)
            .update(text)
            .digest('hex');
          const attempt = Context.current().info.attempt;
          let response: Response;
          try {
            response = await fetch(url, {
              method: 'POST',
              headers: {
                'Content-Type': 'application/json',
                'Idempotency-Key': state.action_id,
                'X-Governed-Action-Id': state.action_id,
                'X-Governed-Signature': `sha256=${signature}`,
              },
              body: text,
              signal: AbortSignal.timeout(deps.webhookTimeoutMs),
            });
          } catch (error) {
            throw new Error(
              `webhook POST ${url} failed: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
          if (response.ok) return { status: response.status, attempt, url };
          if (
            response.status >= 400 &&
            response.status < 500 &&
            response.status !== 408 &&
            response.status !== 429
          ) {
            throw ApplicationFailure.nonRetryable(
              `webhook answered ${response.status}`,
              EXECUTION_FAILURES.webhookRejected,
            );
          }
          throw new Error(`webhook answered ${response.status}; will retry`);
        }
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
