import { aboutness } from '../../../domain/intentionality/aboutness';
import { getThread, listThreads } from '../../../domain/intentionality/threads';
import * as intentionalityViews from '../../../domain/intentionality/view-schemas';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope, fromQuery, page } from '../common';

/** What records are about, and the threads of records about one subject (docs/witnesses.md). */
export const intentionalityRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'intentionality.aboutness',
    method: 'GET',
    path: '/v1/aboutness',
    family: 'intentionality',
    summary: 'aboutness for a handle',
    description:
      "What a record (session, action, task, event, deployment, object) or a shared context (`ctx:<id>`) is about: world objects with weights and the records that make each link, and each object's thread. A handle that names nothing is 404; one of no known kind 422.",
    request: { query: intentionalityViews.aboutnessQuery },
    responses: {
      404: { description: 'Nothing is known by this handle.' },
      200: {
        description: 'What it is about.',
        schema: envelope(intentionalityViews.aboutnessView),
      },
    },
    handler: async (req, deps) => ({ payload: await aboutness(deps, req.query.handle) }),
  }),
  defineRoute({
    operationId: 'intentionality.threads.list',
    method: 'GET',
    path: '/v1/intentionality/threads',
    family: 'intentionality',
    summary: 'list threads',
    description:
      "Threads (`thr_` + sha256 of the subject): with `object_id` that object's, with `shared_context_id` the context's and those of the objects it is about, otherwise one per world object in id order.",
    request: { query: intentionalityViews.threadListQuery },
    responses: {
      200: {
        description: 'A page of threads.',
        schema: page(intentionalityViews.threadSummaryView, intentionalityViews.threadListQuery),
      },
    },
    handler: fromQuery(listThreads),
  }),
  defineRoute({
    operationId: 'intentionality.threads.get',
    method: 'GET',
    path: '/v1/intentionality/threads/{thread_id}',
    family: 'intentionality',
    summary: 'inspect thread',
    description:
      "The records about the thread's subject, oldest first and paged: world history events, actions, external events and repairs of an object; sessions, actions, events and tasks of a context. A thread id never issued is 404.",
    request: {
      params: intentionalityViews.threadParams,
      query: intentionalityViews.threadEntriesQuery,
    },
    responses: {
      200: { description: 'The thread.', schema: envelope(intentionalityViews.threadView) },
    },
    handler: async (req, deps) => ({
      payload: await getThread(deps, req.params.thread_id, req.query),
    }),
  }),
];
