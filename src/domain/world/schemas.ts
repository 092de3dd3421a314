/**
 * The world model's vocabulary and the schemas of its inputs and views (DESIGN.md section 5);
 * request types are derived from the schemas, never written twice.
 */
import type { Static } from '@sinclair/typebox';
import {
  arrayOf,
  choice,
  closedObject,
  contextRef,
  count,
  dateTime,
  extendView,
  freeObject,
  idRef,
  integer,
  nullable,
  pagedQuery,
  patterned,
  prefixedId,
  text,
  view,
} from '../../lib/schema';

/** Task states (DESIGN.md section 5); `done` and `cancelled` are final. */
export const TASK_STATES = ['open', 'in_progress', 'blocked', 'done', 'cancelled'] as const;
export type TaskState = (typeof TASK_STATES)[number];
/** States a task may be created in. */
export const INITIAL_TASK_STATES = ['open', 'in_progress', 'blocked'] as const;

const kindFilter = (what: string) =>
  patterned(`Only ${what} of this kind (e.g. \`service\`).`, '^[a-z][a-z0-9_.-]{0,63}$', 64);

/** Query of the object lists (`objects`, `state`): paged, optionally of one kind. */
export const worldKindQuery = pagedQuery({ kind: kindFilter('objects') });
export type WorldKindQuery = Static<typeof worldKindQuery>;

/** Query of `GET /v1/worlds/history`. */
export const worldHistoryQuery = pagedQuery({
  object_id: idRef('obj', 'Only events about this world object.'),
  kind: patterned(
    'Only events of this kind (e.g. `object.updated`).',
    '^[a-z][a-z0-9_.-]{0,63}$',
    64,
  ),
});
export type WorldHistoryQuery = Static<typeof worldHistoryQuery>;

/** Query of `GET /v1/worlds/objects/{object_id}/relationships`. */
export const relationshipQuery = pagedQuery({
  kind: patterned('Only relationships of this kind.', '^[a-z][a-z0-9_.-]{0,63}$', 64),
  direction: choice(
    ['out', 'in', 'both'],
    '`out`: the object is `from`; `in`: it is `to`; `both`.',
    'both',
  ),
});
export type RelationshipQuery = Static<typeof relationshipQuery>;

/** Query of `GET /v1/worlds/external-state`. */
export const externalStateQuery = pagedQuery({
  object_id: idRef('obj', 'Only this world object.'),
  kind: kindFilter('objects'),
});
export type ExternalStateQuery = Static<typeof externalStateQuery>;

/** Body of `POST /v1/worlds/tasks`. */
export const createWorldTaskBody = closedObject(
  {
    title: text('Task title.', 200),
    object_refs: arrayOf(idRef('obj', 'World object id.'), 'World objects the task is about.', {
      maxItems: 100,
      uniqueItems: true,
    }),
    shared_context_id: contextRef('Shared context the task belongs to.'),
    state: choice(INITIAL_TASK_STATES, 'Initial state.', 'open'),
  },
  ['title'],
);
export type CreateWorldTaskRequest = Static<typeof createWorldTaskBody>;

/** Body of `PATCH /v1/worlds/tasks/{task_id}`. */
export const updateWorldTaskBody = closedObject(
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
);
export type UpdateWorldTaskRequest = Static<typeof updateWorldTaskBody>;

/** A world object. */
export const worldObjectView = view(
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

/** A relationship. */
export const relationshipView = view(
  {
    relationship_id: prefixedId('rel', 'Relationship id.'),
    from: idRef('obj', 'Source object.'),
    to: idRef('obj', 'Target object.'),
    kind: text('Relationship kind, e.g. `depends_on`.', 64),
  },
  ['relationship_id', 'from', 'to', 'kind'],
  'A directed relationship between two world objects.',
);

/** A history event. */
export const historyEventView = view(
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

/** A world task. */
export const taskView = view(
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

/** A task after an update, with the state it left. */
export const updatedTaskView = extendView(taskView, {
  previous_state: choice(TASK_STATES, 'State before this update.'),
});

/** The world state: a page of objects and the history head. */
export const worldStateView = view(
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
);
