/** Schemas of what the action routes answer (views); they document the OpenAPI responses. */
import * as schema from '../../lib/schema';
import { ruleInForceView } from '../approval-rules/view-schemas';
import { ACTION_KINDS, ACTION_STATUSES, MAX_NAMED_IDS, planDigest } from './schemas';

const workflowUrl = schema.workflowUrl;

/** What the calling key may do next with an action. */
const allowedView = schema.view(
  {
    approve: schema.flag('The calling key may approve now.'),
    reject: schema.flag('The calling key may reject now.'),
    execute: schema.flag('The calling key may execute now.'),
  },
  ['approve', 'reject', 'execute'],
  'What the calling key may do next.',
);

/** Why the calling key may not take a decision `allowed` refuses. */
const whyNotView = schema.view(
  {
    approve: schema.text('Why the calling key may not approve now.', 256),
    reject: schema.text('Why the calling key may not reject now.', 256),
    execute: schema.text('Why the calling key may not execute now.', 256),
  },
  [],
  'Why the calling key may not take each decision `allowed` refuses, in words for the caller (e.g. `you proposed it; a proposer cannot decide on their own action`); a decision it may take has no entry. What the console shows beside a disabled button.',
);

/** A dry-run plan. */
export const planView = schema.view(
  {
    plan_digest: planDigest('Digest of this plan; an approval may name it.'),
    ok: schema.flag('False when the contract cannot run as proposed.'),
    diff: schema.nullable(
      schema.freeObject('Before/after of the touched attributes (`world.update_object`).'),
    ),
    request: schema.nullable(
      schema.freeObject('The request that would be sent (`webhook.post`, `notify`).'),
    ),
    bounds: schema.freeObject('Bounds in force, with defaults filled in.'),
    policy: schema.view(
      {
        allowed: schema.flag('Policy verdict.'),
        reasons: schema.arrayOf(schema.text('One reason.', 1024), 'Why the verdict.', {
          maxItems: 32,
        }),
      },
      ['allowed', 'reasons'],
      'Policy verdict.',
    ),
    planned_at: schema.dateTime('When the plan was made.'),
  },
  ['plan_digest', 'ok', 'bounds', 'policy'],
  'A dry-run plan.',
);

/** One decision. */
export const decisionView = schema.view(
  {
    decision: schema.choice(['approve', 'reject', 'execute'], 'What was decided.'),
    principal_id: schema.text('Deciding principal.', 64),
    key_id: schema.text('Key the decision came with.', 12),
    reason: schema.nullable(schema.text('Reason given.', 1024)),
    plan_digest: schema.nullable(planDigest('Plan the decision named.')),
    at: schema.dateTime('When.'),
    approver_assertion: schema.freeObject(
      "The approver's own signature (`key_id`, `nonce`, `expires_at`, and `signature` or `webauthn`), when the decision carries one (docs/approvals.md).",
    ),
  },
  ['decision', 'principal_id', 'at'],
);

/** An action. */
export const actionView = schema.view(
  {
    action_id: schema.prefixedId('act', 'Action id.'),
    action_kind: schema.choice(ACTION_KINDS, 'Action kind.'),
    target: schema.freeObject('What the action acts on.'),
    parameters: schema.freeObject('Kind-specific parameters.'),
    bounds: schema.freeObject('Bounds, with defaults filled in.'),
    status: schema.choice(
      ACTION_STATUSES,
      'Current status. `aborted`: its workflow was terminated, cancelled, timed out or failed in Temporal before the action ended (the ledger entry says by whom and why).',
    ),
    status_timestamps: schema.freeObject('One timestamp per status reached.'),
    proposed_by: schema.text('Proposing principal.', 64),
    approvals: schema.arrayOf(decisionView, 'Approvals so far.', { maxItems: 5 }),
    decisions: schema.arrayOf(decisionView, 'Every decision, in order.', { maxItems: 64 }),
    dry_run: schema.nullable(planView),
    execution: schema.nullable(
      schema.view(
        {
          outcome: schema.choice(['executed', 'failed'], 'How execution ended.'),
          reason: schema.nullable(schema.text('Failure reason, e.g. `plan_drift`.', 1024)),
          result: schema.freeObject('What execution did (new object version, response status...).'),
          started_at: schema.dateTime('When execution started.'),
          finished_at: schema.dateTime('When execution finished.'),
        },
        ['outcome'],
        'Execution outcome, once executed.',
      ),
    ),
    allowed: allowedView,
    why_not: whyNotView,
    shared_context_id: schema.nullable(schema.contextRef('Shared context.')),
    reason: schema.nullable(schema.text('Reason given at proposal.', 1024)),
    expires_at: schema.dateTime('When an unapproved action expires.'),
    workflow_id: schema.text('Temporal workflow id (`action-act_...`).', 128),
    workflow_url: workflowUrl,
    links: schema.view(
      { temporal_ui: schema.text("The workflow run's history in the Temporal Web UI.", 2048) },
      ['temporal_ui'],
    ),
    run_id: schema.text('Temporal run id.', 128),
    created_at: schema.dateTime('When proposed.'),
    updated_at: schema.dateTime('Last change.'),
    rule: schema.nullable(ruleInForceView),
    executable_at: schema.nullable(
      schema.dateTime(
        "When execution may start: approval plus the rule's wait (set once approved).",
      ),
    ),
    refused_decisions: schema.integer(
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
    'why_not',
    'workflow_id',
    'workflow_url',
    'links',
    'created_at',
    'updated_at',
  ],
  'An outbound action contract and its ledger.',
);

/** One action in a list: what a person needs to decide, without the full record. */
export const actionSummaryView = schema.view(
  {
    action_id: schema.prefixedId('act', 'Action id.'),
    action_kind: schema.choice(ACTION_KINDS, 'Action kind.'),
    status: schema.choice(ACTION_STATUSES, 'Current status.'),
    target: schema.freeObject('What the action acts on.'),
    reason: schema.nullable(schema.text('Reason given at proposal.', 1024)),
    diff_summary: schema.nullable(
      schema.text(
        'What execution would change, in one line (e.g. `status: "draft" → "published"`).',
        512,
      ),
    ),
    plan_digest: schema.nullable(planDigest('Digest of the dry-run plan a decision may name.')),
    proposed_by: schema.text('Proposing principal.', 64),
    approvals: schema.arrayOf(
      schema.view(
        { principal_id: schema.text('Approving principal.', 64), at: schema.dateTime('When.') },
        ['principal_id', 'at'],
      ),
      'Approvals so far.',
      { maxItems: 5 },
    ),
    required_approvals: schema.integer('Approvals needed.', 1, 5),
    rule: schema.nullable(ruleInForceView),
    shared_context_id: schema.nullable(schema.contextRef('Shared context.')),
    expires_at: schema.dateTime('When the approval (then execution) window ends.'),
    executable_at: schema.nullable(schema.dateTime('When execution may start, once approved.')),
    allowed: allowedView,
    workflow_id: schema.text('Temporal workflow id.', 128),
    workflow_url: workflowUrl,
    created_at: schema.dateTime('When proposed.'),
    updated_at: schema.dateTime('Last change.'),
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
    'workflow_url',
    'created_at',
    'updated_at',
  ],
  'An action in a list.',
);

/** One ledger entry. */
export const ledgerEntryView = schema.view(
  {
    entry_id: schema.text('`<action_id>:<seq>`.', 64),
    action_id: schema.prefixedId('act', 'Action id.'),
    seq: schema.integer("Position in the action's chain, from 1.", 1, 1000),
    at: schema.dateTime('When.'),
    event: schema.text(
      'What happened: a status reached, `approval_recorded`, `decision_refused` (a decision without a valid api signature), or `run_refused` (a run of its workflow the ledger contradicts, e.g. after a reset).',
      64,
    ),
    run_id: schema.nullable(
      schema.text(
        'The workflow run that recorded it (null: recorded by the api, or before runs were recorded).',
        64,
      ),
    ),
    status: schema.choice(ACTION_STATUSES, 'Status after the event.'),
    action_kind: schema.choice(ACTION_KINDS, 'Action kind.'),
    shared_context_id: schema.nullable(schema.contextRef('Shared context.')),
    actor: schema.nullable(
      schema.freeObject('Principal and key that caused it; null for the workflow itself.'),
    ),
    detail: schema.freeObject('Reason, plan digest, result or failure.'),
    prev_digest: schema.nullable(planDigest('Digest of the previous entry of this action.')),
    digest: planDigest('sha256 of this entry, its `prev_digest` included.'),
    seal: schema.view(
      {
        key_id: schema.patterned(
          "The ledger seal key's Ed25519 public key, hex.",
          '^[0-9a-f]{64}$',
        ),
        signature: schema.patterned(
          'Ed25519 over `["governed-runtime/ledger-seal/v1", entry_id, digest]` (JSON), hex.',
          '^[0-9a-f]{128}$',
        ),
      },
      ['key_id', 'signature'],
      "The service's seal over this entry's id and digest (docs/actions.md); absent on entries written before sealing existed.",
    ),
  },
  ['entry_id', 'action_id', 'seq', 'at', 'event', 'status', 'prev_digest', 'digest'],
  'One ledger entry.',
);

/** The answer of a dry run: the contract as it would be recorded, and its plan. */
export const dryRunView = schema.view(
  { contract: schema.freeObject('The contract as it would be recorded.'), plan: planView },
  ['contract', 'plan'],
);

/** The names of the principals and world objects that actions and their ledger name by id. */
export const actionNamesView = schema.view(
  {
    principals: schema.arrayOf(
      schema.view(
        {
          principal_id: schema.prefixedId('prn', 'Principal id.'),
          name: schema.text('Its name.', 256),
        },
        ['principal_id', 'name'],
      ),
      'The principals asked for that exist, in the order asked; unknown ids are left out.',
      { maxItems: MAX_NAMED_IDS },
    ),
    objects: schema.arrayOf(
      schema.view(
        {
          object_id: schema.prefixedId('obj', 'World object id.'),
          name: schema.text('Its name.', 256),
          kind: schema.text('Its kind.', 64),
        },
        ['object_id', 'name', 'kind'],
      ),
      'The world objects asked for that exist, in the order asked; unknown ids are left out.',
      { maxItems: MAX_NAMED_IDS },
    ),
  },
  ['principals', 'objects'],
  'Names for ids.',
);
