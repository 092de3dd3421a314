/** Views of the shared-context witnesses (DESIGN.md section 8; docs/witnesses.md). */
import * as schema from '../../lib/schema';
import { witness } from '../witnesses/view-schemas';

export const contextParams = schema.pathParams({
  context_id: schema.contextRef('Shared context id.'),
});

const contextId = schema.contextRef('The shared context.');
const list = (item: string, description: string) =>
  schema.arrayOf(schema.freeObject(item), description, { maxItems: 100 });
const counts = (description: string) => schema.freeObject(description);

export const contextView = witness(
  'shared_context',
  {
    context_id: contextId,
    first_activity_at: schema.dateTime('Its first record.'),
    last_activity_at: schema.dateTime('Its newest record.'),
    counts: counts('`sessions`, `actions`, `events`, `tasks` that name it.'),
    participants: schema.arrayOf(
      schema.text('A principal id, or `source:<family>` for an event source.', 140),
      'Who took part: session creators, proposers, deciders, event sources.',
      { maxItems: 10_000 },
    ),
  },
  'A shared context.',
);

export const contextAboutnessView = witness(
  'shared_aboutness',
  {
    context_id: contextId,
    referenced_objects: schema.count('World objects its records refer to.'),
    objects: list(
      '`object_id`, `references`, `weight` (share of all references) and `referrers` (`kind`, `id`).',
      'Most referred first.',
    ),
  },
  'What a shared context is about.',
);

export const contextCommitmentsView = witness(
  'shared_commitments',
  {
    context_id: contextId,
    actions: list(
      '`action_id`, `action_kind`, `status`, `target`, `approvals`, `since`.',
      'Approved or executing actions.',
    ),
    tasks: list('`task_id`, `title`, `state`, `object_refs`.', 'Open or in-progress tasks.'),
    counts: counts('`actions`, `tasks`.'),
  },
  "A shared context's commitments.",
);

export const contextDisagreementView = witness(
  'shared_disagreement',
  {
    context_id: contextId,
    rejections: list('`action_id`, `by`, `reason`.', 'Rejected actions.'),
    split_decisions: list(
      '`action_id`, `approved_by`, `rejected_by`.',
      'Actions both approved and rejected.',
    ),
    conflicts: list('`event_id`, `world_object_ref`.', 'Events reconciled as conflicts.'),
    stale_events: list('`event_id`, `world_object_ref`.', 'Events reconciled as stale.'),
    blocked_tasks: list('`task_id`, `title`.', 'Blocked tasks.'),
    counts: counts('Per list.'),
  },
  'Where a shared context disagrees.',
);

export const contextEvidenceView = witness(
  'shared_evidence',
  {
    context_id: contextId,
    ledger: list(
      '`entry_id`, `action_id`, `seq`, `event`, `at`, `prev_digest`, `digest`.',
      'Ledger entries of its actions (the newest 100).',
    ),
    events: list(
      '`event_id`, `source_family`, `source_event_id`, `payload_sha256`.',
      'Its events.',
    ),
    checkpoints: list(
      '`checkpoint_id`, `completed_at`, `manifest_sha256`.',
      'Checkpoints completed since it began.',
    ),
    counts: counts('`ledger_entries`, `events`.'),
  },
  'The evidence behind a shared context.',
);

export const contextReconciliationView = witness(
  'shared_external_reconciliation',
  {
    context_id: contextId,
    events: list(
      '`event_id`, `source_family`, `event_type`, `world_object_ref`, `occurred_at`, `outcome`.',
      'Its events.',
    ),
    counts: counts('Events per outcome.'),
  },
  "A shared context's external events and their reconciliation.",
);

export const contextWorkflowSummaryView = witness(
  'shared_workflow_summary',
  {
    context_id: contextId,
    query: schema.text('The Temporal visibility query.', 300),
    total: schema.count('Executions found (at most 1,000 read).'),
    by_type: schema.freeObject('Executions per workflow type, per execution status.'),
    newest: schema.arrayOf(
      schema.freeObject(
        '`workflow_id`, `run_id`, `type`, `status`, `start_time`, `close_time`, `ui_url`.',
      ),
      'The newest executions, with Temporal UI links.',
      { maxItems: 20 },
    ),
  },
  "A shared context's workflows.",
);
