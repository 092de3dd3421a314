/** Schemas of what the action routes answer (views); they document the OpenAPI responses. */
import {
  arrayOf,
  choice,
  contextRef,
  dateTime,
  flag,
  freeObject,
  integer,
  nullable,
  prefixedId,
  text,
  view,
} from '../../lib/schema';
import { ruleInForceView } from '../approvals/view-schemas';
import { ACTION_KINDS, ACTION_STATUSES, planDigest } from './schemas';

/** What the calling key may do next with an action. */
const allowedView = view(
  {
    approve: flag('The calling key may approve now.'),
    reject: flag('The calling key may reject now.'),
    execute: flag('The calling key may execute now.'),
  },
  ['approve', 'reject', 'execute'],
  'What the calling key may do next.',
);

/** A dry-run plan. */
export const planView = view(
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

/** One decision. */
export const decisionView = view(
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

/** An action. */
export const actionView = view(
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
    allowed: allowedView,
    shared_context_id: nullable(contextRef('Shared context.')),
    reason: nullable(text('Reason given at proposal.', 1024)),
    expires_at: dateTime('When an unapproved action expires.'),
    workflow_id: text('Temporal workflow id (`action-act_...`).', 128),
    run_id: text('Temporal run id.', 128),
    created_at: dateTime('When proposed.'),
    updated_at: dateTime('Last change.'),
    rule: nullable(ruleInForceView),
    executable_at: nullable(
      dateTime("When execution may start: approval plus the rule's wait (set once approved)."),
    ),
    refused_decisions: integer(
      'Decisions sent around the api and refused: unsigned, forged, replayed or stale (each in the ledger as `decision_refused`, up to 20).',
      0,
      100000,
    ),
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

/** One action in a list: what a person needs to decide, without the full record. */
export const actionSummaryView = view(
  {
    action_id: prefixedId('act', 'Action id.'),
    action_kind: choice(ACTION_KINDS, 'Action kind.'),
    status: choice(ACTION_STATUSES, 'Current status.'),
    target: freeObject('What the action acts on.'),
    reason: nullable(text('Reason given at proposal.', 1024)),
    diff_summary: nullable(
      text('What execution would change, in one line (e.g. `status: "draft" → "published"`).', 512),
    ),
    plan_digest: nullable(planDigest('Digest of the dry-run plan a decision may name.')),
    proposed_by: text('Proposing principal.', 64),
    approvals: arrayOf(
      view({ principal_id: text('Approving principal.', 64), at: dateTime('When.') }, [
        'principal_id',
        'at',
      ]),
      'Approvals so far.',
      { maxItems: 5 },
    ),
    required_approvals: integer('Approvals needed.', 1, 5),
    rule: nullable(ruleInForceView),
    shared_context_id: nullable(contextRef('Shared context.')),
    expires_at: dateTime('When the approval (then execution) window ends.'),
    executable_at: nullable(dateTime('When execution may start, once approved.')),
    allowed: allowedView,
    workflow_id: text('Temporal workflow id.', 128),
    created_at: dateTime('When proposed.'),
    updated_at: dateTime('Last change.'),
  },
  [
    'action_id',
    'action_kind',
    'status',
    'target',
    'proposed_by',
    'approvals',
    'required_approvals',
    'expires_at',
    'allowed',
    'workflow_id',
    'created_at',
    'updated_at',
  ],
  'An action in a list.',
);

/** One ledger entry. */
export const ledgerEntryView = view(
  {
    entry_id: text('`<action_id>:<seq>`.', 64),
    action_id: prefixedId('act', 'Action id.'),
    seq: integer("Position in the action's chain, from 1.", 1, 1000),
    at: dateTime('When.'),
    event: text(
      'What happened: a status reached, `approval_recorded`, or `decision_refused` (a decision without a valid api signature).',
      64,
    ),
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

/** The answer of a dry run: the contract as it would be recorded, and its plan. */
export const dryRunView = view(
  { contract: freeObject('The contract as it would be recorded.'), plan: planView },
  ['contract', 'plan'],
);
