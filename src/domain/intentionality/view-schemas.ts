/** Queries and views of intentionality: aboutness and threads (docs/witnesses.md). */
import { Type, type Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { witness } from '../witnesses/view-schemas';
import { idCursor, nextCursorSchema, timeCursor } from '../../lib/cursor';

export const aboutnessQuery = schema.closedObject(
  {
    handle: schema.patterned(
      'Any record id (`ses_`, `act_`, `tsk_`, `evt_`, `dep_`, `obj_`) or `ctx:<context_id>`.',
      // The kinds `aboutness.ts` resolves (HANDLE_KINDS): another prefix is 422 here.
      '^((ses|act|tsk|evt|dep|obj)_[0-9A-Za-z]{10,40}|ctx:[A-Za-z0-9_.:-]{1,128})$',
      140,
    ),
  },
  ['handle'],
);
export type AboutnessQuery = Static<typeof aboutnessQuery>;

export const threadListQuery = schema.pagedQuery(idCursor('obj').schema, {
  object_id: schema.prefixedId('obj', 'Only the thread about this world object.'),
  shared_context_id: schema.contextRef('Only threads touching this shared context.'),
});
export type ThreadListQuery = Static<typeof threadListQuery>;

export const threadParams = schema.pathParams({
  thread_id: schema.prefixedId('thr', 'Thread id.'),
});
export const threadEntriesQuery = schema.pagedQuery(timeCursor.schema);

const link = schema.view(
  { kind: schema.text('Record kind.', 32), id: schema.text('Record id.', 140) },
  ['kind', 'id'],
);

export const aboutnessView = witness(
  'aboutness',
  {
    handle: schema.text('The handle asked about.', 140),
    kind: schema.text('What the handle named (`action`, `task`, `context`, ...).', 32),
    objects: schema.arrayOf(
      schema.view(
        {
          object_id: schema.text('The world object.', 128),
          weight: Type.Number({ minimum: 0, maximum: 1, description: 'Its share of the links.' }),
          thread_id: schema.prefixedId('thr', 'Its thread.'),
          links: schema.arrayOf(link, 'The records that make the link.', { maxItems: 10_000 }),
        },
        ['object_id', 'weight', 'thread_id', 'links'],
      ),
      'World objects it is about, heaviest first.',
      { maxItems: 1000 },
    ),
  },
  'What a record is about.',
);

const subject = schema.view(
  {
    kind: schema.choice(['object', 'context'], 'What the thread is about.'),
    id: schema.text('The object id or the context id.', 128),
  },
  ['kind', 'id'],
  'The subject of a thread.',
);

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
      schema.view(
        {
          at: schema.dateTime('When.'),
          kind: schema.choice(
            ['history', 'action', 'event', 'task', 'session', 'repair'],
            'What kind of record.',
          ),
          id: schema.text('Its id.', 64),
          what: schema.text('What it is, in a few words.', 512),
        },
        ['at', 'kind', 'id', 'what'],
      ),
      'Its records, oldest first (one page).',
      { maxItems: 200 },
    ),
    total: schema.count('Records in the thread.'),
    next_cursor: nextCursorSchema(timeCursor.schema),
  },
  ['thread_id', 'subject', 'entries', 'total', 'next_cursor'],
  'A thread and a page of its records.',
);
