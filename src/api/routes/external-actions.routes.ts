import {
  actionHistory,
  decideAction,
  dryRunAction,
  getAction,
  proposeAction,
} from '../../domain/actions/actions.service';
import { defineRoute, type JsonSchema, type RouteDefinition } from '../route';
import { closedObject, envelope, page, pagedQuery, pathParams, prefixedId } from './common';
import {
  arrayOf,
  choice,
  contextRef,
  dateTime,
  flag,
  freeObject,
  idRef,
  integer,
  nullable,
  patterned,
  text,
  view,
  type NoParams,
  type NoQuery,
  type PagedQuery,
} from './schemas';

const TAGS = ['external-actions'];

/** Kinds of outbound action (DESIGN.md section 5). */
export const ACTION_KINDS = ['world.update_object', 'webhook.post', 'notify'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** Statuses of an outbound action (DESIGN.md section 5). */
export const ACTION_STATUSES = [
  'proposed',
  'awaiting_approval',
  'dry_run_failed',
  'approved',
  'rejected',
  'expired',
  'executing',
  'executed',
  'failed',
] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];

/** Bounds of an action: defaults 86,400 s to expiry and one approval. */
export const ACTION_BOUNDS = {
  expiresInSeconds: { min: 60, max: 604_800, default: 86_400 },
  requiredApprovals: { min: 1, max: 5, default: 1 },
} as const;

/** Body of `POST /v1/external-actions/propose` and `/dry-run`. */
export interface ExternalActionRequest {
  action_kind: ActionKind;
  target: { world_object_ref?: string; url?: string };
  parameters: Record<string, unknown>;
  bounds: { allowed_fields?: string[]; expires_in_seconds?: number; required_approvals?: number };
  shared_context_id?: string;
  reason?: string;
}

/** Body of `approve`, `reject` and `execute`; the decider is the calling key's principal. */
export interface ExternalActionDecisionRequest {
  reason?: string;
  plan_digest?: string;
}

/** Query of `GET /v1/external-actions/history`. */
export type ActionHistoryQuery = PagedQuery & {
  status?: ActionStatus;
  action_kind?: ActionKind;
  shared_context_id?: string;
};
type ActionParams = { action_id: string };

const planDigest = (description: string): JsonSchema =>
  patterned(description, '^(sha256:)?[0-9a-f]{64}$', 71);

const actionRequestSchema = closedObject(
  {
    action_kind: choice(
      ACTION_KINDS,
      '`world.update_object` patches attributes of a world object within `bounds.allowed_fields`; `webhook.post` POSTs a signed JSON body to an allow-listed URL; `notify` puts a message in the outbox.',
    ),
    target: closedObject(
      {
        world_object_ref: idRef('obj', 'World object to update (`world.update_object`).'),
        url: {
          type: 'string',
          format: 'uri',
          pattern: '^https?://',
          maxLength: 2048,
          description: 'URL to POST to (`webhook.post`); must be on the allow-list.',
        },
      },
      [],
      'What the action acts on.',
    ),
    parameters: freeObject(
      'Kind-specific parameters: the attribute patch, the webhook JSON body, or the message.',
    ),
    bounds: closedObject(
      {
        allowed_fields: arrayOf(
          text('Attribute name.', 128),
          'Attributes `world.update_object` may touch; others make the dry run fail.',
          { maxItems: 100, uniqueItems: true },
        ),
        expires_in_seconds: integer(
          'Seconds the action may wait for approval before it expires.',
          ACTION_BOUNDS.expiresInSeconds.min,
          ACTION_BOUNDS.expiresInSeconds.max,
          ACTION_BOUNDS.expiresInSeconds.default,
        ),
        required_approvals: integer(
          'Approvals needed, from distinct principals other than the proposer.',
          ACTION_BOUNDS.requiredApprovals.min,
          ACTION_BOUNDS.requiredApprovals.max,
          ACTION_BOUNDS.requiredApprovals.default,
        ),
      },
      [],
      'Bounds of the contract.',
    ),
    shared_context_id: contextRef('Shared context the action belongs to.'),
    reason: text('Why the action is proposed (kept in the ledger).', 1024),
  },
  ['action_kind', 'target', 'parameters', 'bounds'],
);

const decisionBody = {
  name: 'ExternalActionDecisionRequest',
  required: false,
  schema: closedObject({
    reason: text('Why (kept in the ledger).', 1024),
    plan_digest: planDigest(
      'Digest of the dry-run plan the decision is based on; 409 when the plan is no longer current.',
    ),
  }),
};

const actionParams = pathParams({ action_id: prefixedId('act', 'Action id.') });

const planView = view(
  {
    plan_digest: planDigest('Digest of this plan; an approval may name it.'),
    ok: flag('False when the contract cannot run as proposed.'),
    diff: nullable(freeObject('Before/after of the touched attributes (`world.update_object`).')),
    request: nullable(freeObject('The request that would be sent (`webhook.post`, `notify`).')),
    bounds: freeObject('Bounds in force, with defaults filled in.'),
    policy: view(
      {
        allowed: flag('Policy verdict.'),
        reasons: arrayOf(text('One reason.', 1024), 'Why the verdict.', { maxItems: 32 }),
      },
      ['allowed', 'reasons'],
      'Policy verdict.',
    ),
    planned_at: dateTime('When the plan was made.'),
  },
  ['plan_digest', 'ok', 'bounds', 'policy'],
  'A dry-run plan.',
);

const decisionView = view(
  {
    decision: choice(['approve', 'reject', 'execute'], 'What was decided.'),
    principal_id: text('Deciding principal.', 64),
    key_id: text('Key the decision came with.', 12),
    reason: nullable(text('Reason given.', 1024)),
    plan_digest: nullable(planDigest('Plan the decision named.')),
    at: dateTime('When.'),
  },
  ['decision', 'principal_id', 'at'],
);

const actionView = view(
  {
    action_id: prefixedId('act', 'Action id.'),
    action_kind: choice(ACTION_KINDS, 'Action kind.'),
    target: freeObject('What the action acts on.'),
    parameters: freeObject('Kind-specific parameters.'),
    bounds: freeObject('Bounds, with defaults filled in.'),
    status: choice(ACTION_STATUSES, 'Current status.'),
    status_timestamps: freeObject('One timestamp per status reached.'),
    proposed_by: text('Proposing principal.', 64),
    approvals: arrayOf(decisionView, 'Approvals so far.', { maxItems: 5 }),
    decisions: arrayOf(decisionView, 'Every decision, in order.', { maxItems: 64 }),
    dry_run: nullable(planView),
    execution: nullable(
      view(
        {
          outcome: choice(['executed', 'failed'], 'How execution ended.'),
          reason: nullable(text('Failure reason, e.g. `plan_drift`.', 1024)),
          result: freeObject('What execution did (new object version, response status...).'),
          started_at: dateTime('When execution started.'),
          finished_at: dateTime('When execution finished.'),
        },
        ['outcome'],
        'Execution outcome, once executed.',
      ),
    ),
    allowed: view(
      {
        approve: flag('The calling key may approve now.'),
        reject: flag('The calling key may reject now.'),
        execute: flag('The calling key may execute now.'),
      },
      ['approve', 'reject', 'execute'],
      'What the calling key may do next.',
    ),
    shared_context_id: nullable(contextRef('Shared context.')),
    reason: nullable(text('Reason given at proposal.', 1024)),
    expires_at: dateTime('When an unapproved action expires.'),
    workflow_id: text('Temporal workflow id (`action-act_...`).', 128),
    run_id: text('Temporal run id.', 128),
    created_at: dateTime('When proposed.'),
    updated_at: dateTime('Last change.'),
  },
  [
    'action_id',
    'action_kind',
    'target',
    'parameters',
    'bounds',
    'status',
    'status_timestamps',
    'proposed_by',
    'approvals',
    'decisions',
    'allowed',
    'workflow_id',
    'created_at',
    'updated_at',
  ],
  'An outbound action contract and its ledger.',
);

const ledgerEntryView = view(
  {
    entry_id: text('`<action_id>:<seq>`.', 64),
    action_id: prefixedId('act', 'Action id.'),
    seq: integer("Position in the action's chain, from 1.", 1, 1000),
    at: dateTime('When.'),
    event: text('What happened: a status reached, or `approval_recorded`.', 64),
    status: choice(ACTION_STATUSES, 'Status after the event.'),
    action_kind: choice(ACTION_KINDS, 'Action kind.'),
    shared_context_id: nullable(contextRef('Shared context.')),
    actor: nullable(freeObject('Principal and key that caused it; null for the workflow itself.')),
    detail: freeObject('Reason, plan digest, result or failure.'),
    prev_digest: nullable(planDigest('Digest of the previous entry of this action.')),
    digest: planDigest('sha256 of this entry, its `prev_digest` included.'),
  },
  ['entry_id', 'action_id', 'seq', 'at', 'event', 'status', 'prev_digest', 'digest'],
  'One ledger entry.',
);

/** Approval-gated outbound actions: propose, dry-run, approve, reject, execute, ledger. */
export const externalActionsRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'actions.dryRun',
    method: 'POST',
    path: '/v1/external-actions/dry-run',
    family: 'external_action_proposal',
    summary: 'dry-run a bounded action contract',
    description:
      'Evaluates a contract without creating anything and returns the plan: the diff against the current object or the request that would be sent, the bounds in force and the policy verdict.',
    tags: TAGS,
    request: { body: { name: 'ExternalActionRequest', schema: actionRequestSchema } },
    responses: {
      200: {
        description: 'The contract with defaults filled in, and its plan.',
        schema: envelope(
          view({ contract: freeObject('The contract as it would be recorded.'), plan: planView }, [
            'contract',
            'plan',
          ]),
        ),
      },
    },
    handler: async (req, deps) => ({ payload: await dryRunAction(deps, req.body) }),
  }),

  defineRoute({
    operationId: 'actions.history',
    method: 'GET',
    path: '/v1/external-actions/history',
    family: 'external_action_proposal',
    summary: 'ledger history',
    description:
      'The ledger of outbound actions: one entry per transition (proposed, awaiting_approval, approval_recorded, approved, executing, executed, ...), newest first, optionally by the status reached, kind or shared context. Each entry carries the digest of the previous entry of its action (`prev_digest`) and its own (`digest`), so tampering is detectable.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        status: choice(ACTION_STATUSES, 'Only actions in this status.'),
        action_kind: choice(ACTION_KINDS, 'Only actions of this kind.'),
        shared_context_id: contextRef('Only actions in this shared context.'),
      }),
    },
    responses: { 200: { description: 'A page of ledger entries.', schema: page(ledgerEntryView) } },
    handler: async (req, deps) => ({ payload: await actionHistory(deps, req.query) }),
  }),

  defineRoute({
    operationId: 'actions.propose',
    method: 'POST',
    path: '/v1/external-actions/propose',
    family: 'external_action_proposal',
    summary: 'propose a bounded action contract',
    description:
      'Records a contract, starts its workflow and dry-runs it: the action ends `awaiting_approval` with its plan, or `dry_run_failed`. The calling principal is the proposer and cannot approve it.',
    tags: TAGS,
    request: { body: { name: 'ExternalActionRequest', schema: actionRequestSchema } },
    responses: { 201: { description: 'The proposed action.', schema: envelope(actionView) } },
    idempotent: true,
    handler: async (req, deps) => ({
      status: 201,
      payload: await proposeAction(deps, req.auth!, req.body),
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
    tags: TAGS,
    request: { params: actionParams },
    responses: { 200: { description: 'The action.', schema: envelope(actionView) } },
    handler: async (req, deps) => ({
      payload: await getAction(deps, req.auth!, req.params.action_id),
    }),
  }),

  defineRoute({
    operationId: 'actions.approve',
    method: 'POST',
    path: '/v1/external-actions/{action_id}/approve',
    family: 'external_action_execution',
    summary: 'approve',
    description:
      'Approves an action awaiting approval; with enough approvals from distinct principals it becomes `approved`. The proposer approving is 403; the wrong state or a stale `plan_digest` is 409.',
    tags: TAGS,
    request: { params: actionParams, body: decisionBody },
    responses: {
      200: { description: 'The action after the approval.', schema: envelope(actionView) },
    },
    handler: async (req, deps) => ({
      payload: await decideAction(deps, req.auth!, req.params.action_id, 'approve', req.body),
    }),
  }),

  defineRoute({
    operationId: 'actions.execute',
    method: 'POST',
    path: '/v1/external-actions/{action_id}/execute',
    family: 'external_action_execution',
    summary: 'execute',
    description:
      'Executes an approved action, at most once whatever the concurrency. Execution re-plans first and fails with reason `plan_drift` if the world changed since approval; the wrong state is 409.',
    tags: TAGS,
    request: { params: actionParams, body: decisionBody },
    responses: {
      200: { description: 'The action, executing or executed.', schema: envelope(actionView) },
    },
    handler: async (req, deps) => ({
      payload: await decideAction(deps, req.auth!, req.params.action_id, 'execute', req.body),
    }),
  }),

  defineRoute({
    operationId: 'actions.reject',
    method: 'POST',
    path: '/v1/external-actions/{action_id}/reject',
    family: 'external_action_execution',
    summary: 'reject',
    description:
      'Rejects an action awaiting approval; the wrong state is 409 with the current status.',
    tags: TAGS,
    request: { params: actionParams, body: decisionBody },
    responses: { 200: { description: 'The rejected action.', schema: envelope(actionView) } },
    handler: async (req, deps) => ({
      payload: await decideAction(deps, req.auth!, req.params.action_id, 'reject', req.body),
    }),
  }),
];
