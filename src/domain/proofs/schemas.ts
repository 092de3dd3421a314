/** Proofs (docs/proofs.md): bounded invariant checks over the ledgers, and their runs. */
import type { Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';

export const PROOF_CHECKS = [
  'action_ledger_chain',
  'actions_match_ledger',
  'actions_match_workflow',
  'executions_approved',
  'decisions_signed',
  'approver_signatures',
  'world_history_replay',
  'event_dedup',
  'no_secrets',
  'artifacts_integrity',
  'repair_chain',
  'authority_records',
  'audit_chain',
] as const;
export type ProofCheck = (typeof PROOF_CHECKS)[number];

export const CHECK_STATUSES = ['passed', 'failed', 'inconclusive'] as const;
export const RUN_STATUSES = ['running', 'completed', 'failed'] as const;
export const CERTIFICATIONS = ['certified', 'failed', 'unknown'] as const;
/** Most violations a check lists (its count covers all). */
export const LISTED_VIOLATIONS = 100;

export const proofRunId = (description: string) => schema.idRef('prf', description);

/** Body of `POST /v1/proofs/checks`. */
export const proofChecksBody = schema.closedObject({
  checks: schema.arrayOf(schema.choice(PROOF_CHECKS, 'A check.'), 'Checks to run (default: all).', {
    minItems: 1,
    maxItems: PROOF_CHECKS.length,
    uniqueItems: true,
  }),
  max_records: schema.integer('Most records each check reads.', 1, 100_000, 10_000),
});
export type ProofChecksBody = Static<typeof proofChecksBody>;

const violationView = schema.view(
  {
    collection: schema.text('Where the record is.', 64),
    record_id: schema.text('The record that breaks the invariant.', 200),
    problem: schema.text('What is wrong with it.', 1024),
  },
  ['collection', 'record_id', 'problem'],
);

export const checkResultView = schema.view(
  {
    name: schema.choice(PROOF_CHECKS, 'The check.'),
    status: schema.choice(
      CHECK_STATUSES,
      '`passed`; `failed` (violations found); `inconclusive` (none found, but the bound stopped the read).',
    ),
    checked: schema.count('Records checked.'),
    violations: schema.arrayOf(violationView, 'The first violations found.', {
      maxItems: LISTED_VIOLATIONS,
    }),
    violation_count: schema.count('Violations found.'),
    bound_reached: schema.flag('Whether `max_records` stopped the read.'),
    run_id: proofRunId('The run that computed it.'),
    finished_at: schema.dateTime('When it finished.'),
  },
  [
    'name',
    'status',
    'checked',
    'violations',
    'violation_count',
    'bound_reached',
    'run_id',
    'finished_at',
  ],
);
export type CheckResult = Static<typeof checkResultView>;
export type Violation = Static<typeof violationView>;

export const proofRunView = schema.view(
  {
    run_id: proofRunId('Run id.'),
    workflow_id: schema.text('Temporal workflow id (`proof-prf_…`).', 128),
    workflow_url: schema.workflowUrl,
    status: schema.choice(RUN_STATUSES, '`running`, then `completed` or `failed`.'),
    checks: schema.arrayOf(schema.choice(PROOF_CHECKS, 'A check.'), 'Checks asked for, in order.', {
      maxItems: PROOF_CHECKS.length,
    }),
    max_records: schema.integer('Most records each check reads.', 1, 100_000),
    progress: schema.view(
      { done: schema.count('Checks finished.'), total: schema.count('Checks asked for.') },
      ['done', 'total'],
    ),
    results: schema.arrayOf(checkResultView, 'Results so far, in order.', {
      maxItems: PROOF_CHECKS.length,
    }),
    requested_by: schema.freeObject('`principal_id` and `key_id` of the requester.'),
    error: schema.nullable(schema.text('Why the run failed.', 2048)),
    created_at: schema.dateTime('When it was asked for.'),
    updated_at: schema.dateTime('Last change.'),
    completed_at: schema.nullable(schema.dateTime('When it ended.')),
  },
  [
    'run_id',
    'workflow_id',
    'workflow_url',
    'status',
    'checks',
    'max_records',
    'progress',
    'results',
    'requested_by',
    'error',
    'created_at',
    'updated_at',
    'completed_at',
  ],
);

export const proofStatusView = schema.view(
  {
    certification: schema.choice(
      CERTIFICATIONS,
      '`certified`: every check passed in its newest result; `failed`: one failed; `unknown`: one never ran or was inconclusive.',
    ),
    as_of: schema.nullable(
      schema.dateTime('The oldest of the newest results (what the certification rests on).'),
    ),
    age_seconds: schema.nullable(schema.count('Seconds since `as_of`.')),
    checks: schema.arrayOf(
      schema.view(
        {
          name: schema.choice(PROOF_CHECKS, 'The check.'),
          newest: schema.nullable(checkResultView),
        },
        ['name', 'newest'],
      ),
      'Each check with its newest result (null: never ran).',
      { maxItems: PROOF_CHECKS.length },
    ),
  },
  ['certification', 'as_of', 'age_seconds', 'checks'],
);

export const proofSummaryView = schema.view(
  {
    runs: schema.count('Runs recorded (at most the newest 1,000 read).'),
    by_day: schema.arrayOf(
      schema.view(
        {
          day: schema.text('UTC day (YYYY-MM-DD).', 10),
          runs: schema.count('Runs asked for that day.'),
          passed: schema.count('Check results passed.'),
          failed: schema.count('Check results failed.'),
          inconclusive: schema.count('Check results inconclusive.'),
        },
        ['day', 'runs', 'passed', 'failed', 'inconclusive'],
      ),
      'Runs per day, newest first (30 days).',
      { maxItems: 30 },
    ),
    newest_failures: schema.arrayOf(checkResultView, 'The newest failed results, newest first.', {
      maxItems: 20,
    }),
    newest_run: schema.nullable(proofRunView),
  },
  ['runs', 'by_day', 'newest_failures', 'newest_run'],
);
