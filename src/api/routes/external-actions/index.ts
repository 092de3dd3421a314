import * as actionsService from '../../../domain/external-actions/external-actions.service';
import { issueDecisionChallenge } from '../../../domain/approver-keys/approver-challenges.service';
import * as keySchemas from '../../../domain/approver-keys/schemas';
import { listActions } from '../../../domain/external-actions/list.service';
import { actionNames } from '../../../domain/external-actions/names.service';
import * as actionsSchemas from '../../../domain/external-actions/schemas';
import * as actionsViews from '../../../domain/external-actions/view-schemas';
import { pathParams, prefixedId } from '../../../lib/schema';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope, fromBody, fromQuery, handOn, page } from '../common';

const actionParams = pathParams({ action_id: prefixedId('act', 'Action id.') });
const decisionBody = {
  name: 'ExternalActionDecisionRequest',
  required: false,
  schema: actionsSchemas.decisionBodySchema,
};

/** Why an approval or rejection is 403 besides the family gate (docs/approvals.md). */
const DECISION_REFUSALS =
  "Also 403 (`forbidden`) when the caller proposed the action, when the approval rule in force does not admit them (`error.rule_id`), and under a rule with `require_approver_signature` when the decision carries no `approver_assertion` (the message names the rule and how to register a key: `POST /v1/principals/me/keys/register`, then `POST …/challenge`; `gr keys create` in the CLI) or one that does not hold: a challenge issued to someone else, for another action, decision, plan or rule version, expired or used already, or a key that is not the caller's, not registered, revoked, or whose signature does not match (`error.approver_key_id`, `error.nonce`; the message names the problem).";

const DECISION_403: Record<number, { description: string }> = {
  403: { description: DECISION_REFUSALS },
};

/** `POST /v1/external-actions/{action_id}/<decision>`: the calling key's principal decides. */
const decisionRoute = (
  decision: 'approve' | 'execute' | 'reject',
  description: string,
  answer: string,
): RouteDefinition =>
  defineRoute({
    operationId: `actions.${decision}`,
    method: 'POST',
    path: `/v1/external-actions/{action_id}/${decision}`,
    family: 'external_action_execution',
    summary: decision,
    description,
    request: { params: actionParams, body: decisionBody },
    responses: {
      ...(decision === 'execute' ? {} : DECISION_403),
      409: {
        description:
          'The action is not in a state that allows this decision (`error.status`; `aborted` when its workflow was ended from Temporal), or the decision was refused.',
      },
      200: { description: answer, schema: envelope(actionsViews.actionView) },
    },
    handler: async (req, deps) => ({
      payload: await actionsService.decideAction(
        deps,
        req.auth,
        req.params.action_id,
        decision,
        req.body,
      ),
    }),
  });

/** Approval-gated outbound actions: propose, dry-run, approve, reject, execute, ledger. */
export const externalActionsRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'actions.list',
    method: 'GET',
    path: '/v1/external-actions',
    family: 'external_action_proposal',
    summary: 'list actions by current status (the approvals inbox)',
    description:
      'Lists actions by their current status, newest first (what awaits approval, and `awaiting_me=true`: newest to enter `awaiting_approval` first; any other status: newest proposed first), optionally by kind, shared context or proposer. `awaiting_me=true` is the inbox: what the calling principal may approve now (awaiting approval, not proposed or already approved by them, eligible under the rule in force). Each item carries the target, a one-line diff summary, the reason, approvals so far, the rule, the window end and what the key may do.',
    request: { query: actionsSchemas.actionListQuery },
    responses: {
      200: {
        description: 'A page of actions.',
        schema: page(actionsViews.actionSummaryView, actionsSchemas.actionListQuery),
      },
    },
    handler: async (req, deps) => ({ payload: await listActions(deps, req.auth, req.query) }),
  }),

  defineRoute({
    operationId: 'actions.dryRun',
    method: 'POST',
    path: '/v1/external-actions/dry-run',
    family: 'external_action_proposal',
    summary: 'dry-run a bounded action contract',
    description:
      'Evaluates a contract without creating anything and returns the plan: the diff against the current object or the request that would be sent, the bounds in force and the policy verdict.',
    request: {
      body: { name: 'ExternalActionRequest', schema: actionsSchemas.actionRequestSchema },
    },
    responses: {
      200: {
        description: 'The contract with defaults filled in, and its plan.',
        schema: envelope(actionsViews.dryRunView),
      },
    },
    handler: fromBody(actionsService.dryRunAction),
  }),

  defineRoute({
    operationId: 'actions.history',
    method: 'GET',
    path: '/v1/external-actions/history',
    family: 'external_action_proposal',
    summary: 'ledger history',
    description:
      'The ledger of outbound actions: one entry per transition (proposed, awaiting_approval, approval_recorded, approved, executing, executed, decision_refused, ...), newest first, optionally by the status recorded with the entry, the kind, the shared context or one action. Each entry carries the digest of the previous entry of its action (`prev_digest`) and its own (`digest`), so tampering is detectable.',
    request: { query: actionsSchemas.actionHistoryQuery },
    responses: {
      200: {
        description: 'A page of ledger entries.',
        schema: page(actionsViews.ledgerEntryView, actionsSchemas.actionHistoryQuery),
      },
    },
    handler: fromQuery(actionsService.actionHistory),
  }),

  defineRoute({
    operationId: 'actions.names',
    method: 'GET',
    path: '/v1/external-actions/names',
    family: 'external_action_proposal',
    summary: 'names behind the ids actions show',
    description:
      "The names of principals (proposers, approvers, deciders, the principal a refused decision claimed, a rule's approvers) and world objects (targets) that actions and their ledger name by id, so a person reads a name beside each id: up to 100 ids of each, comma-separated, answered in one request. Only names (and an object's kind), never e-mail, organization or role; ids that name nothing are left out.",
    request: { query: actionsSchemas.actionNamesQuery },
    responses: {
      200: { description: 'The names found.', schema: envelope(actionsViews.actionNamesView) },
    },
    handler: fromQuery(actionNames),
  }),

  defineRoute({
    operationId: 'actions.propose',
    method: 'POST',
    path: '/v1/external-actions/propose',
    family: 'external_action_proposal',
    summary: 'propose a bounded action contract',
    description:
      'Records a contract, starts its workflow and dry-runs it: the action ends `awaiting_approval` with its plan, or `dry_run_failed`. The calling principal is the proposer and cannot approve it.',
    request: {
      body: { name: 'ExternalActionRequest', schema: actionsSchemas.actionRequestSchema },
    },
    responses: {
      201: {
        description: 'The proposed action.',
        schema: envelope(actionsViews.actionView),
        links: handOn('action_id', '/payload/action_id', {
          path: {
            Get: 'actions.get',
            Approve: 'actions.approve',
            Reject: 'actions.reject',
            Execute: 'actions.execute',
            History: 'actions.history',
          },
        }),
      },
    },
    idempotent: true,
    handler: async (req, deps) => ({
      status: 201,
      payload: await actionsService.proposeAction(deps, req.auth, req.body),
    }),
  }),

  defineRoute({
    operationId: 'actions.get',
    method: 'GET',
    path: '/v1/external-actions/{action_id}',
    family: 'external_action_proposal',
    summary: 'inspect action',
    description:
      'Returns one action with its plan, decisions, execution, a timestamp per state reached and `allowed` (what the calling key may do next).',
    request: { params: actionParams },
    responses: { 200: { description: 'The action.', schema: envelope(actionsViews.actionView) } },
    handler: async (req, deps) => ({
      payload: await actionsService.getAction(deps, req.auth, req.params.action_id),
    }),
  }),

  defineRoute({
    operationId: 'actions.challenge',
    method: 'POST',
    path: '/v1/external-actions/{action_id}/challenge',
    family: 'external_action_execution',
    summary: 'challenge to sign a decision',
    description:
      "A single-use nonce, valid `APPROVER_CHALLENGE_TTL_SECONDS` (300 s), and the exact bytes the caller signs with their own approver key to approve or reject this action's plan (docs/approvals.md): sign `message` with an Ed25519 key, or pass `webauthn_challenge` to `navigator.credentials.get`; then send the assertion as `approver_assertion` with the decision. An action not awaiting approval is 409.",
    request: {
      params: actionParams,
      body: { name: 'DecisionChallengeRequest', schema: keySchemas.challengeBody },
    },
    responses: {
      409: { description: 'The action is not awaiting approval (`error.status`).' },
      200: { description: 'What to sign.', schema: envelope(keySchemas.challengeView) },
    },
    handler: async (req, deps) => ({
      payload: await issueDecisionChallenge(deps, req.auth, req.params.action_id, req.body),
    }),
  }),

  decisionRoute(
    'approve',
    'Approves an action awaiting approval; with enough approvals from distinct principals it becomes `approved`. The proposer approving is 403; the wrong state or a stale `plan_digest` is 409.',
    'The action after the approval.',
  ),
  decisionRoute(
    'execute',
    'Executes an approved action, at most once whatever the concurrency. Execution re-plans first and fails with reason `plan_drift` if the world changed since approval; the wrong state is 409.',
    'The action, executing or executed.',
  ),
  decisionRoute(
    'reject',
    'Rejects an action awaiting approval; the wrong state is 409 with the current status.',
    'The rejected action.',
  ),
];
