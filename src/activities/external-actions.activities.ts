import { ApplicationFailure, Context } from '@temporalio/activity';
import { approverSignaturesProblem } from '../domain/external-actions/approver-authority';
import { schedulingWorkflow } from './scheduling-workflow';
import { planAction, planDigestOf } from '../domain/external-actions/planner';
import type { Repos } from '../store';
import {
  LedgerDisagreement,
  createTransitionRecorder,
  type RecordTransitionInput,
} from '../domain/external-actions/record-transitions';
import { reopenProblem } from '../domain/external-actions/ledger-agreement';
import { createResetNoter } from './reset-notes';
import { effectLedgerProblem } from '../domain/external-actions/effect-ledger';
import { LedgerOffCheckpoint } from '../domain/external-actions/ledger-checkpoint-check';
import { createRunRefusals } from './run-refusals';
import type { Notify } from '../domain/notifications/notifiable-event';
import {
  ACTION_ERRORS,
  EXECUTION_FAILURES,
  actionWorkflowId,
  proposalClaimOf,
  type ActionContract,
  type ActionPlan,
  type ActionState,
  type ActionWorkflowInput,
  type PlanRefusal,
} from '../workflows/external-action.contract';
import { openAction, planned, transitionRecordsOf } from '../workflows/action-machine';
import { createExecuteRecorded } from './execute-recorded';
import { createRecordedAssertionCheck } from './recorded-assertions';
import { restoreObject } from './restore-object';
import type { SecurityEvent, WorkerTrust } from '../domain/worker-trust';
import { postWebhook } from './webhook-post';

export interface ActionActivityDeps {
  repos: Pick<
    Repos,
    | 'externalActions'
    | 'actionInbox'
    | 'worldObjects'
    | 'worldHistory'
    | 'worldExternalState'
    | 'outbox'
    | 'approverKeys'
  >;
  /** Tells subscribers about the transition (`action.<status>`), when one is wanted. */
  notify?: Notify;
  webhookAllowlist: readonly string[];
  webhookSigningSecret: string;
  webhookTimeoutMs: number;
  /** What trust is decided with: the worker's own keys (`src/domain/worker-trust.ts`). */
  trust: Pick<
    WorkerTrust,
    | 'authority'
    | 'acceptedSignerKeys'
    | 'relyingParty'
    | 'reportSecurityEvent'
    | 'ledgerSeal'
    | 'ledgerCheckpoints'
  >;
}

/**
 * How an action's workflow opens: a trusted proposal and its dry run, or a refusal. Asked to
 * record (`record_at`), the activity also records the proposal and its plan's outcome and
 * answers the ledger head (`recorded_head`): the lean shape (docs/workflow-versioning.md).
 */
export type OpenedProposal =
  | { trusted: true; accepted_keys: string[]; plan: ActionPlan; recorded_head?: string }
  | { trusted: false; problem: string };

export type { RecordTransitionInput } from '../domain/external-actions/record-transitions';

/** The workflow run this activity records for (Temporal's word), or null when called directly. */
function recordingRunId(): string | null {
  try {
    return schedulingWorkflow().runId;
  } catch {
    return null;
  }
}

/** Activities of the external-action workflow; each is idempotent under retries. */
export function createActionActivities(deps: ActionActivityDeps) {
  const { repos } = deps;
  // Every record this worker makes checks the ledger against the signed checkpoints first.
  const recorderDeps = {
    ...deps,
    ledgerSeal: deps.trust.ledgerSeal,
    checkpoints: deps.trust.ledgerCheckpoints,
  };
  const appendTransitionsToLedger = createTransitionRecorder(recorderDeps);
  const { refuseThisRun, refuseOffCheckpoint } = createRunRefusals({
    ...recorderDeps,
    reportSecurityEvent: deps.trust.reportSecurityEvent,
  });
  const noteReset = createResetNoter();
  const approverAssertionsProblem = createRecordedAssertionCheck(
    repos.approverKeys,
    deps.trust.relyingParty,
  );
  /**
   * The `recordActionTransitions` activity: checks each state's signatures (a forged one is
   * refused and reported), then appends the batch to the ledger (`createTransitionRecorder`).
   * An empty batch is a bug, never worth a retry.
   */
  async function verifyAndRecordTransitions(inputs: RecordTransitionInput[]): Promise<string> {
    if (inputs.length === 0) throw ApplicationFailure.nonRetryable('no transition to record');
    for (const { state, event } of inputs) {
      const problem =
        deps.trust.authority.stateProblem(state) ?? (await approverAssertionsProblem(state));
      if (problem) await refuse('security.unsigned_record', state, problem, { event });
    }
    try {
      const runId = recordingRunId();
      return await appendTransitionsToLedger(await noteReset(inputs, runId), { run_id: runId });
    } catch (error) {
      if (error instanceof LedgerOffCheckpoint) return refuseOffCheckpoint(error.mismatch);
      if (!(error instanceof LedgerDisagreement)) throw error;
      return refuseThisRun(inputs[0].state.action_id, error.message, error.agreement.at_seq);
    }
  }

  /** Reports the refusal, then fails the activity for good (nothing was written). */
  async function refuse(
    kind: SecurityEvent['kind'],
    state: Pick<ActionState, 'action_id' | 'status'>,
    problem: string,
    detail: Record<string, unknown> = {},
  ): Promise<never> {
    const info = Context.current().info;
    const { workflowId, runId } = schedulingWorkflow();
    await deps.trust.reportSecurityEvent({
      kind,
      message: `refused for action ${state.action_id}: ${problem}`,
      dedup_key: `${workflowId}/${runId}/${info.activityId}`,
      detail: {
        action_id: state.action_id,
        status: state.status,
        workflow_id: workflowId,
        run_id: runId,
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
  async function replayProblem(
    actionId: string,
    firstRunId: string,
  ): Promise<{ problem: string | null; opened: boolean }> {
    const opened = await repos.externalActions.findById(actionId);
    return {
      problem:
        opened && (opened.first_run_id ?? opened.run_id) !== firstRunId
          ? `action ${actionId} was opened by workflow run ${opened.run_id} already (a replayed proposal)`
          : null,
      opened: opened !== null,
    };
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

  /**
   * Applies the effect once: a retry recognises its own earlier success. Nothing the
   * workflow hands over is believed: the effect re-plans the signed contract and acts only
   * when the api's signatures authorise that very plan (`ActionAuthority.executionProblem`).
   */
  async function applyAction(input: {
    state: ActionState;
    plan: ActionPlan;
  }): Promise<Record<string, unknown>> {
    const { contract } = input.state.proposal;
    const state: ActionState = { ...input.state, ...contract };
    // What the ledger and its signed checkpoints say now, read beside the plan made now;
    // they decide first.
    const [replan, ledgerRefusal] = await Promise.all([
      planActionContract(contract, { actionId: state.action_id }),
      effectLedgerProblem(repos.externalActions, input.state, deps.trust.ledgerCheckpoints),
    ]);
    if (ledgerRefusal?.mismatch) await refuseOffCheckpoint(ledgerRefusal.mismatch);
    if (ledgerRefusal) await refuseThisRun(state.action_id, ledgerRefusal.problem, input.state.seq);
    // Its own change already applied (a retry after a lost answer): the approved plan.
    const plan = replan.already_applied ? input.plan : replan;
    // The plan made now is not the approved one: not a forgery, the world or the policy
    // moved. The details say how, as the workflow records it (`PlanRefusal`).
    const refusal: PlanRefusal = {
      replanned_digest: replan.plan_digest,
      reasons: replan.policy.reasons,
    };
    if (!replan.already_applied && !replan.ok) {
      throw ApplicationFailure.create({
        message: `policy refuses the plan made now: ${replan.policy.reasons.join('; ')}`,
        type: EXECUTION_FAILURES.policyDenied,
        nonRetryable: true,
        details: [refusal],
      });
    }
    if (!replan.already_applied && replan.plan_digest !== input.plan.plan_digest) {
      throw ApplicationFailure.create({
        message: `the world changed since the plan (${replan.plan_digest}, approved ${input.plan.plan_digest})`,
        type: EXECUTION_FAILURES.planDrift,
        nonRetryable: true,
        details: [refusal],
      });
    }
    const problem =
      deps.trust.authority.executionProblem(input.state, plan.plan_digest) ??
      (planDigestOf(contract, plan) === plan.plan_digest
        ? null
        : 'the plan handed to the effect is not the plan its digest names') ??
      (plan.ok ? null : `policy refuses it: ${plan.policy.reasons.join('; ')}`) ??
      // The approvers' own signatures, when the signed rule requires them: checked against
      // their keys as they stand now, so a key revoked since the approval voids it.
      (await approverSignaturesProblem(input.state, repos.approverKeys, deps.trust.relyingParty, {
        activeNow: true,
      }));
    if (problem) await refuse('security.unsigned_effect', state, problem);
    const now = new Date().toISOString();
    switch (state.action_kind) {
      case 'world.update_object': {
        const diff = plan.diff!;
        const patch = state.parameters['patch'] as Record<string, unknown>;
        const applied = await repos.worldObjects.patchAtVersion(
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
          // Not applied now, but the object carries this action's change already: a
          // retry of an execution whose patch landed before the worker died goes on.
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
  }

  return {
    /**
     * The first step of every action workflow: its start input must be a proposal the api
     * signed (with a key the worker accepts). A refused one is reported and nothing else
     * happens; a trusted one is dry-run, and the keys decisions are checked with come back.
     */
    async openActionProposal(
      input: ActionWorkflowInput,
      run: { first_run_id: string; record_at?: string },
    ): Promise<OpenedProposal> {
      const { workflowId, runId } = schedulingWorkflow();
      const problem =
        deps.trust.authority.proposalProblem(
          input.proposal_signature && { ...proposalClaimOf(input), ...input.proposal_signature },
        ) ??
        (workflowId === actionWorkflowId(input.action_id)
          ? null
          : `workflow ${workflowId} is not the workflow of action ${input.action_id}`);
      const replay = problem ? null : await replayProblem(input.action_id, run.first_run_id);
      // The same chain opening an action its ledger holds: a reset to the first workflow task.
      // Entries this very run wrote are its own (a retry of this activity after it recorded).
      const reopened =
        replay?.opened && !replay.problem
          ? reopenProblem(
              (await repos.externalActions.entriesFrom(input.action_id, 1)).filter(
                (entry) => entry.run_id !== runId,
              ),
            )
          : null;
      if (reopened) return refuseThisRun(input.action_id, reopened, null);
      const refusal = problem ?? replay?.problem;
      if (refusal) {
        await deps.trust.reportSecurityEvent({
          kind: 'security.unsigned_proposal',
          message: `refused to run workflow ${workflowId}: ${refusal}`,
          dedup_key: `${workflowId}/${runId}`,
          detail: {
            action_id: input.action_id,
            workflow_id: workflowId,
            run_id: runId,
            claimed_proposer: input.proposed_by,
            problem: refusal,
          },
        });
        return { trusted: false, problem: refusal };
      }
      const plan = await planActionContract(input.contract);
      const opened = {
        trusted: true as const,
        accepted_keys: [...deps.trust.acceptedSignerKeys],
        plan,
      };
      if (!run.record_at) return opened;
      // The workflow's own first transitions, computed by the same pure machine from the same
      // input: the proposal, then `awaiting_approval` or `dry_run_failed`.
      const machine = openAction(input, {
        workflow_id: workflowId,
        run_id: runId,
        first_run_id: run.first_run_id,
      });
      const step = planned(machine, plan, run.record_at);
      const head = await verifyAndRecordTransitions(transitionRecordsOf(step, run.record_at, null));
      return { ...opened, recorded_head: head };
    },

    planActionContract,

    recordActionTransitions: verifyAndRecordTransitions,

    /** The lean shape's execution in one local activity (`execute-recorded.ts`). */
    executeRecorded: createExecuteRecorded({
      record: verifyAndRecordTransitions,
      apply: applyAction,
    }),

    applyAction,
  };
}
