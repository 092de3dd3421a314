import { defineRoute, type RouteDefinition } from '../route';
import { envelope, notImplemented, page, pagedQuery, pathParams, prefixedId } from './common';
import {
  arrayOf,
  choice,
  contextRef,
  count,
  dateTime,
  decimal,
  extendView,
  idRef,
  patterned,
  text,
  view,
  type NoParams,
  type NoQuery,
  type PagedQuery,
} from './schemas';

const TAGS = ['intentionality'];

/** Query of `GET /v1/aboutness`. */
export type AboutnessQuery = { handle: string };
/** Query of `GET /v1/intentionality/threads`. */
export type ThreadListQuery = PagedQuery & {
  shared_context_id?: string;
  object_id?: string;
  status?: string;
};
type ThreadParams = { thread_id: string };

const THREAD_STATUSES = ['open', 'resolved'] as const;

const referentView = view(
  {
    ref: text('What is referred to: an object, task, action, event or context id.', 128),
    kind: text('Kind of referent, e.g. `world_object`, `task`.', 64),
    weight: decimal('Share of the references that point here, 0..1.', 0, 1),
    references: count('Records that refer to it.'),
  },
  ['ref', 'kind', 'references'],
);

const threadView = view(
  {
    thread_id: prefixedId('thr', 'Thread id.'),
    subject: text('What the thread is about (a handle).', 128),
    status: choice(THREAD_STATUSES, 'Thread status.'),
    shared_context_id: contextRef('Shared context of the thread, when any.'),
    refs: arrayOf(text('A referenced handle.', 128), 'Handles the thread refers to.', {
      maxItems: 256,
    }),
    entries: count('Records in the thread.'),
    opened_at: dateTime('First record of the thread.'),
    updated_at: dateTime('Newest record of the thread.'),
  },
  ['thread_id', 'subject', 'status', 'refs', 'entries', 'opened_at', 'updated_at'],
  'An intentionality thread: records directed at the same subject.',
);

/** Aboutness and intentionality threads. */
export const intentionalityRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'intentionality.aboutness',
    method: 'GET',
    path: '/v1/aboutness',
    family: 'intentionality',
    summary: 'aboutness for a handle',
    description:
      'Returns what the records carrying a handle (a session, task, action, event, object or shared-context id) are about: the referents they point at, weighted, and the threads they belong to.',
    tags: TAGS,
    request: {
      query: {
        type: 'object',
        properties: {
          handle: patterned(
            'Handle to explain: any server id or shared-context id.',
            '^[A-Za-z0-9_.:-]{1,128}$',
            128,
          ),
        },
        required: ['handle'],
      },
    },
    responses: {
      200: {
        description: 'The aboutness of the handle.',
        schema: envelope(
          view(
            {
              handle: text('The handle asked about.', 128),
              about: arrayOf(referentView, 'Referents, heaviest first.', { maxItems: 500 }),
              threads: arrayOf(idRef('thr', 'Thread id.'), 'Threads the handle appears in.', {
                maxItems: 500,
              }),
              computed_at: dateTime('When the readout was computed.'),
            },
            ['handle', 'about', 'threads', 'computed_at'],
          ),
        ),
      },
    },
    handler: notImplemented('Aboutness inspection'),
  }),

  defineRoute({
    operationId: 'intentionality.threads.list',
    method: 'GET',
    path: '/v1/intentionality/threads',
    family: 'intentionality',
    summary: 'list threads',
    description:
      'Lists intentionality threads, newest activity first, optionally filtered by shared context, world object or status.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        shared_context_id: contextRef('Only threads in this shared context.'),
        object_id: idRef('obj', 'Only threads that refer to this world object.'),
        status: choice(THREAD_STATUSES, 'Only threads in this status.'),
      }),
    },
    responses: { 200: { description: 'A page of threads.', schema: page(threadView) } },
    handler: notImplemented('Intentionality threads'),
  }),

  defineRoute({
    operationId: 'intentionality.threads.get',
    method: 'GET',
    path: '/v1/intentionality/threads/{thread_id}',
    family: 'intentionality',
    summary: 'inspect thread',
    description: 'Returns one thread with its newest records.',
    tags: TAGS,
    request: { params: pathParams({ thread_id: prefixedId('thr', 'Thread id.') }) },
    responses: {
      200: {
        description: 'The thread.',
        schema: envelope(
          extendView(threadView, {
            records: arrayOf(
              view(
                {
                  ref: text('Record id (task, action, event, session step...).', 128),
                  kind: text('Record kind.', 64),
                  at: dateTime('When the record was made.'),
                },
                ['ref', 'kind', 'at'],
              ),
              'Newest records of the thread (at most 100).',
              { maxItems: 100 },
            ),
          }),
        ),
      },
    },
    handler: notImplemented('Intentionality threads'),
  }),
];
