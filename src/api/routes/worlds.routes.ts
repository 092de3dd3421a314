import { externalStates } from '../../domain/events/events.service';
import { createTask, updateTask } from '../../domain/world/tasks.service';
import {
  getObject,
  listHistory,
  listObjects,
  listRelationships,
  worldState,
} from '../../domain/world/world.service';
import { defineRoute, type RouteDefinition } from '../route';
import { closedObject, envelope, page, pagedQuery, pathParams, prefixedId } from './common';
import {
  arrayOf,
  choice,
  contextRef,
  count,
  dateTime,
  externalStateView,
  extendView,
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

const TAGS = ['worlds'];

/** Task states (DESIGN.md section 5); `done` and `cancelled` are final. */
export const TASK_STATES = ['open', 'in_progress', 'blocked', 'done', 'cancelled'] as const;
export type TaskState = (typeof TASK_STATES)[number];
/** States a task may be created in. */
export const INITIAL_TASK_STATES = ['open', 'in_progress', 'blocked'] as const;

/** Body of `POST /v1/worlds/tasks`. */
export interface CreateWorldTaskRequest {
  title: string;
  object_refs?: string[];
  shared_context_id?: string;
  state?: (typeof INITIAL_TASK_STATES)[number];
}

/** Body of `PATCH /v1/worlds/tasks/{task_id}`. */
export interface UpdateWorldTaskRequest {
  state: TaskState;
  expected_version?: number;
  title?: string;
}

/** Query of the object-kind filtered world lists. */
export type WorldKindQuery = PagedQuery & { kind?: string };
/** Query of `GET /v1/worlds/history`. */
export type WorldHistoryQuery = PagedQuery & { object_id?: string; kind?: string };
/** Query of `GET /v1/worlds/objects/{object_id}/relationships`. */
export type RelationshipQuery = PagedQuery & { kind?: string; direction?: 'out' | 'in' | 'both' };
/** Query of `GET /v1/worlds/external-state`. */
export type ExternalStateQuery = PagedQuery & { object_id?: string; kind?: string };
type ObjectParams = { object_id: string };
type TaskParams = { task_id: string };

const kindFilter = (what: string) =>
  patterned(`Only ${what} of this kind (e.g. \`service\`).`, '^[a-z][a-z0-9_.-]{0,63}$', 64);

const objectParams = pathParams({ object_id: prefixedId('obj', 'World object id.') });

const worldObjectView = view(
  {
    object_id: prefixedId('obj', 'World object id.'),
    kind: text('Object kind, e.g. `service`, `dataset`.', 64),
    name: text('Display name.', 256),
    attributes: freeObject('Attributes of the object.'),
    external_state: nullable(freeObject('Reconciled external fields, when any event applied.')),
    version: count('Optimistic-concurrency version; bumped by every change.'),
    created_at: dateTime('When the object was created.'),
    updated_at: dateTime('When the object last changed.'),
  },
  ['object_id', 'kind', 'name', 'attributes', 'version', 'created_at', 'updated_at'],
  'A world object.',
);

const relationshipView = view(
  {
    relationship_id: prefixedId('rel', 'Relationship id.'),
    from: idRef('obj', 'Source object.'),
    to: idRef('obj', 'Target object.'),
    kind: text('Relationship kind, e.g. `depends_on`.', 64),
  },
  ['relationship_id', 'from', 'to', 'kind'],
  'A directed relationship between two world objects.',
);

const historyEventView = view(
  {
    event_id: prefixedId('evt', 'History event id.'),
    kind: text('What happened, e.g. `object.updated`, `task.created`.', 64),
    object_id: idRef('obj', 'Object the event concerns, when any.'),
    at: dateTime('When it happened.'),
    change: freeObject('The change (before/after of the touched fields).'),
  },
  ['event_id', 'kind', 'at', 'change'],
  'One world history event.',
);

const taskView = view(
  {
    task_id: prefixedId('tsk', 'Task id.'),
    title: text('Task title.', 200),
    state: choice(TASK_STATES, 'Task state.'),
    object_refs: arrayOf(idRef('obj', 'World object id.'), 'World objects the task is about.', {
      maxItems: 100,
    }),
    shared_context_id: contextRef('Shared context of the task, when any.'),
    version: count('Version; send it back as `expected_version` to update safely.'),
    created_at: dateTime('When the task was created.'),
    updated_at: dateTime('When the task last changed.'),
  },
  ['task_id', 'title', 'state', 'object_refs', 'version'],
  'A world task.',
);

/** World model: objects, relationships, history, reconciled external state and tasks. */
export const worldsRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'worlds.externalState',
    method: 'GET',
    path: '/v1/worlds/external-state',
    family: 'external_reconciliation',
    summary: 'reconciled external state by world object',
    description:
      'Lists the reconciled external state of world objects: merged fields, `generation` / `observed_generation` and Kubernetes-style conditions, one item per object that any event reached.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        object_id: idRef('obj', 'Only this world object.'),
        kind: kindFilter('objects'),
      }),
    },
    responses: {
      200: { description: 'A page of external states.', schema: page(externalStateView) },
    },
    handler: async (req, deps) => ({ payload: await externalStates(deps, req.query) }),
  }),

  defineRoute({
    operationId: 'worlds.history',
    method: 'GET',
    path: '/v1/worlds/history',
    family: 'worlds_basic',
    summary: 'world history summary',
    description:
      'Lists the append-only world history, newest first: every object, relationship and task change and every applied external event.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        object_id: idRef('obj', 'Only events about this world object.'),
        kind: patterned(
          'Only events of this kind (e.g. `object.updated`).',
          '^[a-z][a-z0-9_.-]{0,63}$',
          64,
        ),
      }),
    },
    responses: {
      200: { description: 'A page of history events.', schema: page(historyEventView) },
    },
    handler: async (req, deps) => ({ payload: await listHistory(deps, req.query) }),
  }),

  defineRoute({
    operationId: 'worlds.objects.list',
    method: 'GET',
    path: '/v1/worlds/objects',
    family: 'worlds_basic',
    summary: 'list world objects',
    description: 'Lists world objects in id order, optionally of one kind.',
    tags: TAGS,
    request: { query: pagedQuery({ kind: kindFilter('objects') }) },
    responses: { 200: { description: 'A page of world objects.', schema: page(worldObjectView) } },
    handler: async (req, deps) => ({ payload: await listObjects(deps, req.query) }),
  }),

  defineRoute({
    operationId: 'worlds.objects.get',
    method: 'GET',
    path: '/v1/worlds/objects/{object_id}',
    family: 'worlds_basic',
    summary: 'inspect world object',
    description:
      'Returns one world object with its attributes, reconciled external state and version.',
    tags: TAGS,
    request: { params: objectParams },
    responses: { 200: { description: 'The world object.', schema: envelope(worldObjectView) } },
    handler: async (req, deps) => ({ payload: await getObject(deps, req.params.object_id) }),
  }),

  defineRoute({
    operationId: 'worlds.objects.relationships',
    method: 'GET',
    path: '/v1/worlds/objects/{object_id}/relationships',
    family: 'worlds_basic',
    summary: 'object relationships',
    description:
      'Lists the relationships of one world object, outgoing, incoming or both (default), optionally of one kind. 404 when the object does not exist.',
    tags: TAGS,
    request: {
      params: objectParams,
      query: pagedQuery({
        kind: patterned('Only relationships of this kind.', '^[a-z][a-z0-9_.-]{0,63}$', 64),
        direction: choice(
          ['out', 'in', 'both'],
          '`out`: the object is `from`; `in`: it is `to`; `both`.',
          'both',
        ),
      }),
    },
    responses: {
      200: { description: 'A page of relationships.', schema: page(relationshipView) },
    },
    handler: async (req, deps) => ({
      payload: await listRelationships(deps, req.params.object_id, req.query),
    }),
  }),

  defineRoute({
    operationId: 'worlds.state',
    method: 'GET',
    path: '/v1/worlds/state',
    family: 'worlds_basic',
    summary: 'observe world state',
    description:
      'Returns the world state: its objects (paged with `limit` / `cursor`, optionally of one kind) and `history_head`, the newest history event id.',
    tags: TAGS,
    request: { query: pagedQuery({ kind: kindFilter('objects') }) },
    responses: {
      200: {
        description: 'The world state.',
        schema: envelope(
          view(
            {
              world_state: view(
                {
                  objects: arrayOf(worldObjectView, 'World objects of this page.', {
                    maxItems: 500,
                  }),
                  history_head: nullable(idRef('evt', 'Newest history event id.')),
                  object_count: count('Objects in the world (all pages).'),
                },
                ['objects', 'history_head'],
              ),
              next_cursor: nullable(text('Cursor of the next page of objects.', 512)),
            },
            ['world_state', 'next_cursor'],
          ),
        ),
      },
    },
    handler: async (req, deps) => ({ payload: await worldState(deps, req.query) }),
  }),

  defineRoute({
    operationId: 'worlds.tasks.create',
    method: 'POST',
    path: '/v1/worlds/tasks',
    family: 'worlds_mutation',
    summary: 'create world task',
    description:
      'Creates a task about world objects, in state `open` unless another initial state is given, and records it in the world history. Unknown `object_refs` are 422.',
    tags: TAGS,
    request: {
      body: {
        name: 'CreateWorldTaskRequest',
        schema: closedObject(
          {
            title: text('Task title.', 200),
            object_refs: arrayOf(
              idRef('obj', 'World object id.'),
              'World objects the task is about.',
              { maxItems: 100, uniqueItems: true },
            ),
            shared_context_id: contextRef('Shared context the task belongs to.'),
            state: choice(INITIAL_TASK_STATES, 'Initial state.', 'open'),
          },
          ['title'],
        ),
      },
    },
    responses: { 201: { description: 'The new task.', schema: envelope(taskView) } },
    idempotent: true,
    handler: async (req, deps) => ({ status: 201, payload: await createTask(deps, req.body) }),
  }),

  defineRoute({
    operationId: 'worlds.tasks.update',
    method: 'PATCH',
    path: '/v1/worlds/tasks/{task_id}',
    family: 'worlds_mutation',
    summary: 'update world task state',
    description:
      'Moves a task to a new state (and optionally retitles it). An illegal transition is 409 `invalid_state`; an `expected_version` that is not the current one is 409 `conflict`.',
    tags: TAGS,
    request: {
      params: pathParams({ task_id: prefixedId('tsk', 'Task id.') }),
      body: {
        name: 'UpdateWorldTaskRequest',
        schema: closedObject(
          {
            state: choice(TASK_STATES, 'Target state.'),
            expected_version: integer(
              'Version the change is based on; 409 when the task has moved on.',
              0,
              Number.MAX_SAFE_INTEGER,
            ),
            title: text('New title.', 200),
          },
          ['state'],
        ),
      },
    },
    responses: {
      200: {
        description: 'The updated task.',
        schema: envelope(
          extendView(taskView, {
            previous_state: choice(TASK_STATES, 'State before this update.'),
          }),
        ),
      },
    },
    handler: async (req, deps) => ({
      payload: await updateTask(deps, req.params.task_id, req.body),
    }),
  }),
];
