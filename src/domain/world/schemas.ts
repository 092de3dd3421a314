/**
 * The world model's vocabulary and the schemas of its inputs and views (docs/world.md);
 * request types are derived from the schemas, never written twice.
 */
import type { Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { idCursor, nextCursorSchema, timeCursor } from '../../lib/cursor';

/** Task states (docs/world.md); `done` and `cancelled` are final. */
export const TASK_STATES = ['open', 'in_progress', 'blocked', 'done', 'cancelled'] as const;
export type TaskState = (typeof TASK_STATES)[number];
/** States a task may be created in. */
export const INITIAL_TASK_STATES = ['open', 'in_progress', 'blocked'] as const;

const kindFilter = (what: string) =>
  schema.patterned(`Only ${what} of this kind (e.g. \`service\`).`, '^[a-z][a-z0-9_.-]{0,63}$', 64);

/** Query of the object lists (`objects`, `state`): paged, optionally of one kind. */
export const worldKindQuery = schema.pagedQuery(idCursor('obj').schema, {
  kind: kindFilter('objects'),
});
export type WorldKindQuery = Static<typeof worldKindQuery>;

/** Query of `GET /v1/worlds/history`. */
export const worldHistoryQuery = schema.pagedQuery(timeCursor.schema, {
  object_id: schema.idRef('obj', 'Only events about this world object.'),
  kind: schema.patterned(
    'Only events of this kind (e.g. `object.updated`).',
    '^[a-z][a-z0-9_.-]{0,63}$',
    64,
  ),
});
export type WorldHistoryQuery = Static<typeof worldHistoryQuery>;

/** Query of `GET /v1/worlds/objects/{object_id}/relationships`. */
export const relationshipQuery = schema.pagedQuery(idCursor('rel').schema, {
  kind: schema.patterned('Only relationships of this kind.', '^[a-z][a-z0-9_.-]{0,63}$', 64),
  direction: schema.choice(
    ['out', 'in', 'both'],
    '`out`: the object is `from`; `in`: it is `to`; `both`.',
    'both',
  ),
});
export type RelationshipQuery = Static<typeof relationshipQuery>;

/** Query of `GET /v1/worlds/external-state`. */
export const externalStateQuery = schema.pagedQuery(idCursor('obj').schema, {
  object_id: schema.idRef('obj', 'Only this world object.'),
  kind: kindFilter('objects'),
});
export type ExternalStateQuery = Static<typeof externalStateQuery>;

/** Body of `POST /v1/worlds/tasks`. */
export const createWorldTaskBody = schema.closedObject(
  {
    title: schema.text('Task title.', 200),
    object_refs: schema.arrayOf(
      schema.idRef('obj', 'World object id.'),
      'World objects the task is about.',
      {
        maxItems: 100,
        uniqueItems: true,
      },
    ),
    shared_context_id: schema.contextRef('Shared context the task belongs to.'),
    state: schema.choice(INITIAL_TASK_STATES, 'Initial state.', 'open'),
  },
  ['title'],
);
export type CreateWorldTaskRequest = Static<typeof createWorldTaskBody>;

/** Body of `PATCH /v1/worlds/tasks/{task_id}`. */
export const updateWorldTaskBody = schema.closedObject(
  {
    state: schema.choice(TASK_STATES, 'Target state.'),
    expected_version: schema.integer(
      'Version the change is based on; 409 when the task has moved on.',
      0,
      Number.MAX_SAFE_INTEGER,
    ),
    title: schema.text('New title.', 200),
  },
  ['state'],
);
export type UpdateWorldTaskRequest = Static<typeof updateWorldTaskBody>;

/** A world object. */
export const worldObjectView = schema.view(
  {
    object_id: schema.prefixedId('obj', 'World object id.'),
    kind: schema.text('Object kind, e.g. `service`, `dataset`.', 64),
    name: schema.text('Display name.', 256),
    attributes: schema.freeObject('Attributes of the object.'),
    external_state: schema.nullable(
      schema.freeObject('Reconciled external fields, when any event applied.'),
    ),
    version: schema.count('Optimistic-concurrency version; bumped by every change.'),
    created_at: schema.dateTime('When the object was created.'),
    updated_at: schema.dateTime('When the object last changed.'),
  },
  ['object_id', 'kind', 'name', 'attributes', 'version', 'created_at', 'updated_at'],
  'A world object.',
);

/** A relationship. */
export const relationshipView = schema.view(
  {
    relationship_id: schema.prefixedId('rel', 'Relationship id.'),
    from: schema.idRef('obj', 'Source object.'),
    to: schema.idRef('obj', 'Target object.'),
    kind: schema.text('Relationship kind, e.g. `depends_on`.', 64),
  },
  ['relationship_id', 'from', 'to', 'kind'],
  'A directed relationship between two world objects.',
);

/** A history event. */
export const historyEventView = schema.view(
  {
    event_id: schema.prefixedId('evt', 'History event id.'),
    kind: schema.text('What happened, e.g. `object.updated`, `task.created`.', 64),
    object_id: schema.idRef('obj', 'Object the event concerns, when any.'),
    at: schema.dateTime('When it happened.'),
    change: schema.freeObject('The change (before/after of the touched fields).'),
  },
  ['event_id', 'kind', 'at', 'change'],
  'One world history event.',
);

/** A world task. */
export const taskView = schema.view(
  {
    task_id: schema.prefixedId('tsk', 'Task id.'),
    title: schema.text('Task title.', 200),
    state: schema.choice(TASK_STATES, 'Task state.'),
    object_refs: schema.arrayOf(
      schema.idRef('obj', 'World object id.'),
      'World objects the task is about.',
      {
        maxItems: 100,
      },
    ),
    shared_context_id: schema.contextRef('Shared context of the task, when any.'),
    version: schema.count('Version; send it back as `expected_version` to update safely.'),
    created_at: schema.dateTime('When the task was created.'),
    updated_at: schema.dateTime('When the task last changed.'),
  },
  ['task_id', 'title', 'state', 'object_refs', 'version'],
  'A world task.',
);

/** A task after an update, with the state it left. */
export const updatedTaskView = schema.extendView(taskView, {
  previous_state: schema.choice(TASK_STATES, 'State before this update.'),
});

/** The world state: a page of objects and the history head. */
export const worldStateView = schema.view(
  {
    world_state: schema.view(
      {
        objects: schema.arrayOf(worldObjectView, 'World objects of this page.', {
          maxItems: 500,
        }),
        history_head: schema.nullable(schema.idRef('evt', 'Newest history event id.')),
        object_count: schema.count('Objects in the world (all pages).'),
      },
      ['objects', 'history_head'],
    ),
    next_cursor: nextCursorSchema(idCursor('obj').schema),
  },
  ['world_state', 'next_cursor'],
);
