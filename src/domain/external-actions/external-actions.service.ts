import { actionRecordOf } from './action-record';
import type { WorkflowTypes } from '../../workflows/workflow-types';
import {
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import {
  AppError,
  found,
  Invalid,
  InvalidState,
  type AppErrorKind,
  Unavailable,
} from '../../lib/errors';
import type {
  ActionHistoryQuery,
  ExternalActionDecisionRequest,
  ExternalActionRequest,
} from './schemas';
import { newId } from '../../lib/ids';
import { decodePageCursor } from '../../store/paging';
import {
  ACTION_ERRORS,
  FINAL_ACTION_STATUSES,
  actionStaticDetails,
  actionStaticSummary,
  actionStateQuery,
  actionWorkflowId,
  approveActionUpdate,
  executeActionUpdate,
  planSettledUpdate,
  proposalClaimOf,
  rejectActionUpdate,
  type ActionState,
  type ActionWorkflowInput,
} from '../../workflows/external-action.contract';
import {
  ActionKindKey,
  ActionStatusKey,
  ApprovalRuleIdKey,
  ApprovalsRemainingKey,
  ProposedByKey,
  SharedContextIdKey,
  WorldObjectIdKey,
} from '../../workflows/shared.contract';
import { verifiedAssertion } from '../approver-keys/approver-challenges.service';
import { ruleFor } from '../approval-rules/approval-rules.service';
import { linksOf } from '../workflow-links';
import { toActionView } from './action-views';
import { toContract } from './contract';
import { finalEntryOf, finalStatusRefusal, type FinalStatusDeps } from './final-status';
import { planAction } from './planner';
import { isFinalStatus } from './ledger-agreement';

type Deps = FinalStatusDeps &
  Pick<DomainInfra, 'config' | 'decisionSigner' | 'metrics' | 'temporal'>;

/** How long `execute` waits for the effect before answering with the status so far. */
const EXECUTE_WAIT_MS = 10_000;

type Decision = 'approve' | 'reject' | 'execute';
const UPDATES = {
  approve: approveActionUpdate,
  reject: rejectActionUpdate,
  execute: executeActionUpdate,
} as const;

/** Records the contract and starts its workflow; answers once the dry run has settled it. */
export async function proposeAction(deps: Deps, auth: AuthContext, body: ExternalActionRequest) {
  const contract = toContract(body);
  const objectId = contract.target.world_object_ref;
  // The rule in force, and the target's name for what people read in the Web UI (one read
  // by id, beside the rule's).
  const [rule, object] = await Promise.all([
    ruleFor(deps.repos.approvalRules, contract),
    objectId ? deps.repos.worldObjects.findById(objectId) : null,
  ]);
  // The rule in force may raise the approvals needed, never lower them.
  if (rule?.required_approvals && rule.required_approvals > contract.bounds.required_approvals) {
    contract.bounds.required_approvals = rule.required_approvals;
  }
  const actionId = newId('act');
  const createdAt = new Date().toISOString();
  // The plan as the api sees it now, signed with the proposal and shown in the static
  // details (the workflow's own dry run is the one approvals bind to).
  const plan = planAction(contract, {
    object,
    webhookAllowlist: deps.config.webhookAllowlist,
    now: createdAt,
  });
  const unsigned: ActionWorkflowInput = {
    action_id: actionId,
    rule,
    contract,
    proposed_by: { principal_id: auth.principalId, key_id: auth.keyId },
    created_at: createdAt,
    plan_digest: plan.plan_digest,
    authority: 'api',
    names: { requester: auth.principalName, target: object?.name },
  };
  // The worker does nothing for a start input the api did not sign (docs/actions.md).
  const input: ActionWorkflowInput = {
    ...unsigned,
    proposal_signature: deps.decisionSigner.signClaim('proposal', proposalClaimOf(unsigned)),
  };
  const client = await temporalClient(deps);
  // Start and wait for the dry run in one call (update-with-start).
  const startWorkflowOperation = new WithStartWorkflowOperation<
    WorkflowTypes['externalActionWorkflow']
  >('externalActionWorkflow', {
    workflowId: actionWorkflowId(actionId),
    workflowIdConflictPolicy: 'FAIL',
    taskQueue: deps.temporal.taskQueue,
    args: [input],
    typedSearchAttributes: [
      { key: ActionKindKey, value: contract.action_kind },
      { key: ActionStatusKey, value: 'proposed' },
      { key: ProposedByKey, value: auth.principalId },
      { key: ApprovalsRemainingKey, value: contract.bounds.required_approvals },
      ...(rule ? [{ key: ApprovalRuleIdKey, value: rule.rule_id }] : []),
      ...(objectId ? [{ key: WorldObjectIdKey, value: objectId }] : []),
      ...(contract.shared_context_id
        ? [{ key: SharedContextIdKey, value: contract.shared_context_id }]
        : []),
    ],
    staticSummary: actionStaticSummary(input),
    staticDetails: actionStaticDetails(
      input,
      linksOf(deps, `/v1/external-actions/${actionId}`, `#/action/${actionId}`),
      plan,
    ),
  });
  // Bounded: with no worker polling (or Temporal stalled) the call would wait forever. The
  // workflow, once started, is the truth: it plans and records itself when a worker comes.
  // The operation's own handle promise fails too when the call does; it is not awaited.
  startWorkflowOperation.workflowHandle().catch(() => undefined);
  let state: ActionState;
  try {
    state = await client.withDeadline(Date.now() + deps.config.proposeTimeoutMs, () =>
      client.workflow.executeUpdateWithStart(planSettledUpdate, { startWorkflowOperation }),
    );
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) throw error;
    throw new Unavailable(
      `the action's dry run did not settle within ${deps.config.proposeTimeoutMs} ms (no worker answered); if it started it goes on, so read it later rather than proposing again`,
      {
        retryAfterSeconds: 5,
        extra: { action_id: actionId, workflow_id: actionWorkflowId(actionId) },
      },
    );
  }
  deps.metrics.workflowStarts.inc({ workflow_type: 'externalActionWorkflow' });
  return toActionView(deps, actionRecordOf(state), auth);
}

/** The plan a contract would get now, creating nothing. */
export async function dryRunAction(deps: Deps, body: ExternalActionRequest) {
  const contract = toContract(body);
  const objectId = contract.target.world_object_ref;
  const object =
    contract.action_kind.startsWith('world.') && objectId
      ? await deps.repos.worldObjects.findById(objectId)
      : null;
  return {
    contract,
    plan: planAction(contract, {
      object,
      webhookAllowlist: deps.config.webhookAllowlist,
      now: new Date().toISOString(),
    }),
  };
}

export async function getAction(deps: Deps, auth: AuthContext, actionId: string) {
  const record = await found(deps.repos.externalActions.findById(actionId), `action ${actionId}`);
  return toActionView(deps, record, auth);
}

/** The hash-chained ledger of transitions, newest first. */
export async function actionHistory(deps: Deps, query: ActionHistoryQuery) {
  const page = await deps.repos.externalActions.listLedger(
    {
      status: query.status,
      action_kind: query.action_kind,
      shared_context_id: query.shared_context_id,
      action_id: query.action_id,
    },
    query.limit ?? 50,
    query.cursor ? decodePageCursor(query.cursor) : undefined,
  );
  return {
    items: page.items.map(({ _id, ...entry }) => ({ entry_id: _id, ...entry })),
    next_cursor: page.next_cursor,
  };
}

/**
 * A decision, as a validated update of the action's workflow: the answer says at once
 * whether it was accepted. `execute` then waits a little for the effect to land.
 */
export async function decideAction(
  deps: Deps,
  auth: AuthContext,
  actionId: string,
  decision: Decision,
  body: ExternalActionDecisionRequest | undefined,
) {
  // The workflow's validator checks status, rule and reason, and an unknown action is told
  // by the refused update (`decisionError`). An approval or rejection always binds a plan:
  // the one the caller named, else the one the approver signed (their challenge's), else the
  // action's dry run (the effect executes only a plan every approval's signature names).
  // A final status is final: the ledger's word, not the projection's nor a workflow's (a
  // reset can start a run of an ended action). Read beside the rest, checked before signing.
  const ledgerEnd = finalEntryOf(deps, actionId);
  ledgerEnd.catch(() => undefined); // awaited below, unless an earlier step throws first
  const assertionInput = decision === 'execute' ? undefined : body?.approver_assertion;
  // The approver's own signature, checked and its challenge used up before the workflow
  // sees the decision (the worker checks it again before any effect); it names the plan.
  const approver =
    assertionInput && decision !== 'execute'
      ? await verifiedAssertion(
          deps,
          auth,
          { action_id: actionId, decision, plan_digest: body?.plan_digest ?? null },
          assertionInput,
        )
      : undefined;
  const record =
    decision !== 'execute' && !body?.plan_digest && !approver
      ? await deps.repos.externalActions.findById(actionId)
      : null;
  const planDigest =
    body?.plan_digest ?? approver?.planDigest ?? record?.dry_run?.plan_digest ?? null;
  // The key's last use is written while the workflow takes the decision: it is bookkeeping,
  // so a failure to write it is logged rather than failing a decision already taken.
  const keyUse = approver?.recordUse().catch((error: unknown) => {
    deps.logger.warn({ err: error, action_id: actionId }, 'approver key use not recorded');
  });
  const client = await temporalClient(deps);
  const ended = await ledgerEnd;
  if (ended) {
    await keyUse;
    throw await finalStatusRefusal(deps, actionId, decision, ended);
  }
  const handle = client.workflow.getHandle(actionWorkflowId(actionId));
  const claim = {
    action_id: actionId,
    decision,
    principal_id: auth.principalId,
    key_id: auth.keyId,
    role: auth.role,
    plan_digest: planDigest,
    reason: body?.reason ?? null,
  };
  let state: ActionState;
  try {
    state = await handle.executeUpdate(UPDATES[decision], {
      args: [
        {
          principal_id: auth.principalId,
          key_id: auth.keyId,
          role: auth.role,
          reason: body?.reason,
          plan_digest: planDigest ?? undefined,
          principal_name: auth.principalName,
          ...(approver ? { approver_assertion: approver.assertion } : {}),
          ...deps.decisionSigner.sign(claim),
        },
      ],
    });
  } catch (error) {
    await keyUse;
    throw await decisionError(deps, actionId, decision, error);
  }
  await keyUse;
  // Executed in one step by the workflow (an effect on our own store), the update answers
  // the outcome already; otherwise the effect is waited for a little.
  if (decision === 'execute' && !isFinalStatus(state.status)) {
    try {
      state = await settledAfterExecute(handle);
    } catch (error) {
      // The execution was taken, then the workflow was ended from Temporal before it could
      // answer (its result and its query fail): it is recorded `aborted` and answered as is.
      deps.logger.warn({ err: error, action_id: actionId }, 'action ended while executing');
      await deps.closedRuns.reflectIfClosed(actionWorkflowId(actionId));
      const record = await deps.repos.externalActions.findById(actionId);
      if (!record) throw error;
      return toActionView(deps, record, auth);
    }
  }
  return toActionView(deps, actionRecordOf(state), auth);
}

async function settledAfterExecute(handle: WorkflowHandle): Promise<ActionState> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), EXECUTE_WAIT_MS);
  });
  try {
    const final =
      (await Promise.race([handle.result() as Promise<ActionState>, waited])) ?? undefined;
    return final ?? (await handle.query(actionStateQuery));
  } finally {
    clearTimeout(timer);
  }
}

const FAILURE_KINDS: Record<string, AppErrorKind> = {
  [ACTION_ERRORS.invalidState]: 'invalid_state',
  [ACTION_ERRORS.forbidden]: 'forbidden',
  [ACTION_ERRORS.conflict]: 'conflict',
  [ACTION_ERRORS.unsigned]: 'forbidden',
};

/** A refused update becomes its HTTP error; a closed workflow is the action's final state. */
async function decisionError(
  deps: Deps,
  actionId: string,
  decision: Decision,
  error: unknown,
): Promise<Error> {
  if (error instanceof WorkflowUpdateFailedError) {
    const cause = error.cause as
      { type?: string; message?: string; details?: unknown[] } | undefined;
    const message = cause?.message ?? 'decision refused';
    if (cause?.type === ACTION_ERRORS.reasonRequired) {
      return new Invalid([{ loc: ['body', 'reason'], msg: message, type: 'value_error.missing' }]);
    }
    const kind = cause?.type ? FAILURE_KINDS[cause.type] : undefined;
    // details: the status, then what names the refusal (the rule), when there is one.
    const [status, named] = (cause?.details ?? []) as [string?, Record<string, unknown>?];
    if (kind) {
      return new AppError(kind, message, { extra: { ...(status ? { status } : {}), ...named } });
    }
    // Not refused by the workflow: the server failed it ("rejected because it wasn't
    // processed by worker"), seen for concurrent executes arriving while the winner's
    // effect runs. The workflow's own state says whether the decision could still apply.
    const live = await liveStatusRefusal(deps, actionId, decision);
    if (live) return live;
  }
  let record = await found(deps.repos.externalActions.findById(actionId), `action ${actionId}`);
  // Not final, yet the workflow did not take the update: it may have been ended from
  // Temporal (terminated, cancelled, timed out). Then the action is recorded `aborted` now,
  // rather than waiting for the closed-run watcher, and the decision is refused like any
  // decision on a final action.
  if (!FINAL_ACTION_STATUSES.includes(record.status)) {
    const reflected = await deps.closedRuns
      .reflectIfClosed(actionWorkflowId(actionId))
      .catch((failure: unknown) => {
        deps.logger.warn({ err: failure, action_id: actionId }, 'closed-run check failed');
        return undefined;
      });
    if (reflected) record = (await deps.repos.externalActions.findById(actionId)) ?? record;
  }
  if (FINAL_ACTION_STATUSES.includes(record.status)) {
    return new InvalidState(`cannot ${decision} an action that is ${record.status}`, {
      extra: { status: record.status },
    });
  }
  deps.logger.error({ err: error, action_id: actionId }, 'action decision failed');
  return new Unavailable('the workflow service did not take the decision; retry');
}

/** How long the api asks the workflow for its status after the server failed a decision. */
const LIVE_STATUS_WAIT_MS = 5_000;

/** What the decision's required status says against the workflow's state now, if it refuses. */
async function liveStatusRefusal(deps: Deps, actionId: string, decision: Decision) {
  const client = await temporalClient(deps);
  // Bounded: with no worker polling, a query waits; the ledger's answer is then the one given.
  const state = await client
    .withDeadline(Date.now() + LIVE_STATUS_WAIT_MS, () =>
      client.workflow.getHandle(actionWorkflowId(actionId)).query(actionStateQuery),
    )
    .catch(() => undefined);
  const required = decision === 'execute' ? 'approved' : 'awaiting_approval';
  if (!state || state.status === required) return undefined;
  return new InvalidState(`cannot ${decision} an action that is ${state.status}`, {
    extra: { status: state.status },
  });
}

async function temporalClient(deps: Deps) {
  try {
    return await deps.temporal.getClient();
  } catch (error) {
    throw new Unavailable(
      `Temporal is unreachable: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
