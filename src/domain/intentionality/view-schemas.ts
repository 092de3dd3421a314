/** Queries and views of intentionality: aboutness and threads (DESIGN.md section 8). */
import type { Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { witness } from '../witnesses/view-schemas';

export const aboutnessQuery = schema.closedObject(
  {
    handle: schema.patterned(
      'Any record id (`ses_`, `act_`, `tsk_`, `evt_`, `dep_`, `obj_`) or `ctx:<context_id>`.',
      '^([a-z]{3}_[0-9A-Za-z]{10,40}|ctx:[A-Za-z0-9_.:-]{1,128})$',
      140,
    ),
  },
  ['handle'],
);
export type AboutnessQuery = Static<typeof aboutnessQuery>;

export const threadListQuery = schema.pagedQuery({
  object_id: schema.prefixedId('obj', 'Only the thread about this world object.'),
  shared_context_id: schema.contextRef('Only threads touching this shared context.'),
});
export type ThreadListQuery = Static<typeof threadListQuery>;

export const threadParams = schema.pathParams({
  thread_id: schema.prefixedId('thr', 'Thread id.'),
});
export const threadEntriesQuery = schema.pagedQuery();

export const aboutnessView = witness(
  'aboutness',
  {
    handle: schema.text('The handle asked about.', 140),
    kind: schema.text('What the handle named (`action`, `task`, `context`, ...).', 32),
    objects: schema.arrayOf(
      schema.freeObject(
        '`object_id`, `weight` (its share of the links), `thread_id`, and `links`: the records (`kind`, `id`) that make it.',
      ),
      'World objects it is about, heaviest first.',
      { maxItems: 1000 },
    ),
  },
  'What a record is about.',
);

const subject = schema.freeObject('`kind` (`object` or `context`) and `id`.');

export const threadSummaryView = schema.view(
  {
    thread_id: schema.prefixedId('thr', 'Thread id: `thr_` + sha256 of the subject, 32 hex.'),
    subject,
    name: schema.text('The object name or `ctx:<id>`.', 256),
  },
  ['thread_id', 'subject', 'name'],
  'A thread.',
);

export const threadView = schema.view(
  {
    thread_id: schema.prefixedId('thr', 'Thread id.'),
    subject,
    entries: schema.arrayOf(
      schema.freeObject('`at`, `kind`, `id`, `what`.'),
      'Its records, oldest first (one page).',
      { maxItems: 200 },
    ),
    total: schema.count('Records in the thread.'),
    next_cursor: schema.nullable(schema.text('Cursor of the next page.', 512)),
  },
  ['thread_id', 'subject', 'entries', 'total', 'next_cursor'],
  'A thread and a page of its records.',
);
