import { externalStates } from '../../../domain/external-events/external-events.service';
import { externalStateView } from '../../../domain/external-events/schemas';
import * as worldSchemas from '../../../domain/world/schemas';
import { createTask, updateTask } from '../../../domain/world/tasks.service';
import * as worldService from '../../../domain/world/world.service';
import { pathParams, prefixedId } from '../../../lib/schema';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope, fromQuery, handOn, page } from '../common';

const objectParams = pathParams({ object_id: prefixedId('obj', 'World object id.') });

/** World model: objects, relationships, history, reconciled external state and tasks. */
export const worldRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'worlds.externalState',
    method: 'GET',
    path: '/v1/worlds/external-state',
    family: 'external_reconciliation',
    summary: 'reconciled external state by world object',
    description:
      'Lists the reconciled external state of world objects: merged fields, `generation` / `observed_generation` and Kubernetes-style conditions, one item per object that any event reached.',
    request: { query: worldSchemas.externalStateQuery },
    responses: {
      200: {
        description: 'A page of external states.',
        schema: page(externalStateView, worldSchemas.externalStateQuery),
      },
    },
    handler: fromQuery(externalStates),
  }),

  defineRoute({
    operationId: 'worlds.history',
    method: 'GET',
    path: '/v1/worlds/history',
    family: 'worlds_basic',
    summary: 'world history summary',
    description:
      'Lists the append-only world history, newest first: every object, relationship and task change and every applied external event.',
    request: { query: worldSchemas.worldHistoryQuery },
    responses: {
      200: {
        description: 'A page of history events.',
        schema: page(worldSchemas.historyEventView, worldSchemas.worldHistoryQuery),
      },
    },
    handler: fromQuery(worldService.listHistory),
  }),

  defineRoute({
    operationId: 'worlds.objects.list',
    method: 'GET',
    path: '/v1/worlds/objects',
    family: 'worlds_basic',
    summary: 'list world objects',
    description: 'Lists world objects in id order, optionally of one kind.',
    request: { query: worldSchemas.worldKindQuery },
    responses: {
      // No operation creates world objects; the list leads to the first one's operations.
      200: {
        description: 'A page of world objects.',
        schema: page(worldSchemas.worldObjectView, worldSchemas.worldKindQuery),
        links: {
          ...handOn('object_id', '/payload/items/0/object_id', {
            path: {
              Get: 'worlds.objects.get',
              Relationships: 'worlds.objects.relationships',
              Repairability: 'repair.repairability',
            },
            body: { RequestRepair: 'repair.request' },
          }),
          ProposeUpdate: {
            operationId: 'actions.propose',
            requestBody: {
              action_kind: 'world.update_object',
              target: { world_object_ref: '$response.body#/payload/items/0/object_id' },
            },
          },
        },
      },
    },
    handler: fromQuery(worldService.listObjects),
  }),

  defineRoute({
    operationId: 'worlds.objects.get',
    method: 'GET',
    path: '/v1/worlds/objects/{object_id}',
    family: 'worlds_basic',
    summary: 'inspect world object',
    description:
      'Returns one world object with its attributes, reconciled external state and version.',
    request: { params: objectParams },
    responses: {
      200: { description: 'The world object.', schema: envelope(worldSchemas.worldObjectView) },
    },
    handler: async (req, deps) => ({
      payload: await worldService.getObject(deps, req.params.object_id),
    }),
  }),

  defineRoute({
    operationId: 'worlds.objects.relationships',
    method: 'GET',
    path: '/v1/worlds/objects/{object_id}/relationships',
    family: 'worlds_basic',
    summary: 'object relationships',
    description:
      'Lists the relationships of one world object, outgoing, incoming or both (default), optionally of one kind. 404 when the object does not exist.',
    request: { params: objectParams, query: worldSchemas.relationshipQuery },
    responses: {
      200: {
        description: 'A page of relationships.',
        schema: page(worldSchemas.relationshipView, worldSchemas.relationshipQuery),
      },
    },
    handler: async (req, deps) => ({
      payload: await worldService.listRelationships(deps, req.params.object_id, req.query),
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
    request: { query: worldSchemas.worldKindQuery },
    responses: {
      200: { description: 'The world state.', schema: envelope(worldSchemas.worldStateView) },
    },
    handler: fromQuery(worldService.worldState),
  }),

  defineRoute({
    operationId: 'worlds.tasks.create',
    method: 'POST',
    path: '/v1/worlds/tasks',
    family: 'worlds_mutation',
    summary: 'create world task',
    description:
      'Creates a task about world objects, in state `open` unless another initial state is given, and records it in the world history. Unknown `object_refs` are 422.',
    request: { body: { name: 'CreateWorldTaskRequest', schema: worldSchemas.createWorldTaskBody } },
    responses: {
      201: {
        description: 'The new task.',
        schema: envelope(worldSchemas.taskView),
        links: handOn('task_id', '/payload/task_id', { path: { Update: 'worlds.tasks.update' } }),
      },
    },
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
    request: {
      params: pathParams({ task_id: prefixedId('tsk', 'Task id.') }),
      body: { name: 'UpdateWorldTaskRequest', schema: worldSchemas.updateWorldTaskBody },
    },
    responses: {
      409: {
        description: 'The task changed since the version given, or the transition is not allowed.',
      },
      200: { description: 'The updated task.', schema: envelope(worldSchemas.updatedTaskView) },
    },
    handler: async (req, deps) => ({
      payload: await updateTask(deps, req.params.task_id, req.body),
    }),
  }),
];
