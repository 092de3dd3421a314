/** Views of the shared-context witnesses (docs/witnesses.md). */
import { Type, type TProperties } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { witness } from '../witnesses/view-schemas';

export const contextParams = schema.pathParams({
  context_id: schema.contextRef('Shared context id.'),
});

const contextId = schema.contextRef('The shared context.');
const list = <P extends TProperties>(item: P, description: string) =>
  schema.arrayOf(schema.view(item, Object.keys(item) as (keyof P & string)[]), description, {
    maxItems: 100,
  });
const id = (description: string) => schema.text(description, 64);
const when = (description: string) => schema.dateTime(description);
const ids = (description: string) =>
  schema.arrayOf(schema.text('A principal id.', 64), description, { maxItems: 100 });
const objectRef = schema.nullable(schema.text('The world object it refers to.', 128));
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
      {
        // As long as an event may name it (`world_object_ref`, 128).
        object_id: schema.text('The world object, as its records name it.', 128),
        references: schema.count('Records referring to it.'),
        weight: Type.Number({
          minimum: 0,
          maximum: 1,
          description: 'Its share of all references.',
        }),
        referrers: schema.arrayOf(
          schema.view({ kind: id('Record kind.'), id: id('Record id.') }, ['kind', 'id']),
          'Up to 20 referring records.',
          { maxItems: 20 },
        ),
      },
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
      {
        action_id: id('The action.'),
        action_kind: id('Its kind.'),
        status: schema.choice(['approved', 'executing'], 'Its status.'),
        target: schema.freeObject('What it acts on.'),
        approvals: schema.count('Approvals recorded.'),
        since: when('When it entered that status.'),
      },
      'Approved or executing actions.',
    ),
    tasks: list(
      {
        task_id: id('The task.'),
        title: schema.text('Its title.', 200),
        state: schema.choice(['open', 'in_progress'], 'Its state.'),
        object_refs: schema.arrayOf(id('An object.'), 'Objects it names.', { maxItems: 100 }),
      },
      'Open or in-progress tasks.',
    ),
    counts: counts('`actions`, `tasks`.'),
  },
  "A shared context's commitments.",
);

export const contextDisagreementView = witness(
  'shared_disagreement',
  {
    context_id: contextId,
    rejections: list(
      {
        action_id: id('The action.'),
        by: ids('Who rejected it.'),
        reason: schema.nullable(schema.text('Why.', 2048)),
      },
      'Rejected actions.',
    ),
    split_decisions: list(
      {
        action_id: id('The action.'),
        approved_by: ids('Who approved it.'),
        rejected_by: ids('Who rejected it.'),
      },
      'Actions both approved and rejected.',
    ),
    conflicts: list(
      { event_id: id('The event.'), world_object_ref: objectRef },
      'Events reconciled as conflicts.',
    ),
    stale_events: list(
      { event_id: id('The event.'), world_object_ref: objectRef },
      'Events reconciled as stale.',
    ),
    blocked_tasks: list(
      { task_id: id('The task.'), title: schema.text('Its title.', 200) },
      'Blocked tasks.',
    ),
    counts: counts('Per list.'),
  },
  'Where a shared context disagrees.',
);

export const contextEvidenceView = witness(
  'shared_evidence',
  {
    context_id: contextId,
    ledger: list(
      {
        entry_id: schema.text('`<action_id>:<seq>`.', 80),
        action_id: id('The action.'),
        seq: schema.integer('Its place in the action ledger.', 1, Number.MAX_SAFE_INTEGER),
        event: id('The transition.'),
        at: when('When.'),
        prev_digest: schema.nullable(schema.text('Digest of the entry before.', 80)),
        digest: schema.text('sha256 of the entry.', 80),
      },
      'Ledger entries of its actions (the newest 100).',
    ),
    events: list(
      {
        event_id: id('The event.'),
        source_family: id('Its source family.'),
        source_event_id: schema.text('Its id at the source.', 256),
        payload_sha256: schema.text('sha256 of its payload.', 80),
      },
      'Its events.',
    ),
    checkpoints: list(
      {
        checkpoint_id: id('The checkpoint.'),
        completed_at: schema.nullable(when('When it completed.')),
        manifest_sha256: schema.nullable(schema.text('sha256 of its manifest.', 80)),
      },
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
      {
        event_id: id('The event.'),
        source_family: id('Its source family.'),
        event_type: schema.text('Its type.', 128),
        world_object_ref: objectRef,
        occurred_at: when('When it happened at its source.'),
        outcome: schema.choice(
          ['applied', 'stale', 'conflict', 'unmatched', 'pending'],
          'How it reconciled (`pending` before it is recorded).',
        ),
      },
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
      schema.view(
        {
          workflow_id: schema.text('Workflow id.', 256),
          run_id: schema.text('Run id.', 64),
          type: schema.text('Workflow type.', 128),
          status: schema.text('Execution status (`RUNNING`, `COMPLETED`, ...).', 32),
          start_time: when('When it started.'),
          close_time: schema.nullable(when('When it closed.')),
          ui_url: schema.text('Its page in the Temporal UI.', 2048),
        },
        ['workflow_id', 'run_id', 'type', 'status', 'start_time', 'close_time', 'ui_url'],
      ),
      'The newest executions, with Temporal UI links.',
      { maxItems: 20 },
    ),
  },
  "A shared context's workflows.",
);
