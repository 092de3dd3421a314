import { createHmac } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import stringify from 'safe-stable-stringify';
import { planAction } from '../domain/actions/planner';
import type { Repos } from '../store';
import {
  createTransitionRecorder,
  type RecordTransitionInput,
} from '../domain/actions/record-transitions';
import type { Notify } from '../domain/notifications/notifiable-event';
import type { ActionContract, ActionPlan, ActionState } from '../workflows/shared';
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
  notify?: Notify;
  webhookAllowlist: readonly string[];
  webhookSigningSecret: string;
  webhookTimeoutMs: number;
}

export type { RecordTransitionInput } from '../domain/actions/record-transitions';

/** Failure types execution can end with; none of them is retried. */
export const EXECUTION_FAILURES = {
  planDrift: 'PlanDrift',
  webhookRejected: 'WebhookRejected',
} as const;

/** Activities of the external-action workflow; each is idempotent under retries. */
export function createActionActivities(deps: ActionActivityDeps) {
  const { repos } = deps;
  const recordTransitions = createTransitionRecorder(deps);
  /** See `createTransitionRecorder`; an empty batch is a bug, never worth a retry. */
  async function recordActionTransitions(inputs: RecordTransitionInput[]): Promise<string> {
    if (inputs.length === 0) throw ApplicationFailure.nonRetryable('no transition to record');
    return recordTransitions(inputs);
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
