import * as checkpointsService from '../../../domain/checkpoints/checkpoints.service';
import * as checkpointsSchemas from '../../../domain/checkpoints/schemas';
import { checkpointView } from '../../../domain/checkpoints/view-schemas';
import { pathParams } from '../../../lib/schema';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope, fromQuery, handOn, page } from '../common';

/** Runtime checkpoints as durable workflows (docs/continuous-ops.md). */
export const checkpointRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'continuousOps.checkpoint',
    method: 'POST',
    path: '/v1/continuous-ops/checkpoint',
    family: 'runtime_witness',
    summary: 'create runtime checkpoint',
    description:
      'Starts a checkpoint workflow (`checkpoint-chk_…`): it copies each scope (default: all) into content-addressed gzipped NDJSON artifacts under `checkpoints/<id>/`, then writes `manifest.json` (counts, sha256 per scope, history head, world revision). Answers 202 at once with the record and a `Location`.',
    request: {
      body: {
        name: 'CheckpointRequest',
        required: false,
        schema: checkpointsSchemas.checkpointBody,
      },
    },
    responses: {
      202: {
        description: 'The checkpoint, running.',
        schema: envelope(checkpointView),
        links: handOn('checkpoint_id', '/payload/checkpoint_id', {
          path: { Get: 'continuousOps.checkpoints.get' },
        }),
      },
    },
    idempotent: true,
    handler: async (req, deps) => {
      const checkpoint = await checkpointsService.createCheckpoint(deps, req.auth, req.body ?? {});
      return {
        status: 202,
        payload: checkpoint,
        headers: { Location: `/v1/continuous-ops/checkpoints/${checkpoint.checkpoint_id}` },
      };
    },
  }),
  defineRoute({
    operationId: 'continuousOps.checkpoints.list',
    method: 'GET',
    path: '/v1/continuous-ops/checkpoints',
    family: 'runtime_witness',
    summary: 'list checkpoints',
    description: 'Lists checkpoints, newest first, optionally in one status.',
    request: { query: checkpointsSchemas.checkpointListQuery },
    responses: {
      200: {
        description: 'A page of checkpoints.',
        schema: page(checkpointView, checkpointsSchemas.checkpointListQuery),
      },
    },
    handler: fromQuery(checkpointsService.listCheckpoints),
  }),
  defineRoute({
    operationId: 'continuousOps.checkpoints.get',
    method: 'GET',
    path: '/v1/continuous-ops/checkpoints/{checkpoint_id}',
    family: 'runtime_witness',
    summary: 'inspect checkpoint',
    description: 'One checkpoint: its status, each scope as it completed, and its manifest.',
    request: {
      params: pathParams({ checkpoint_id: checkpointsSchemas.checkpointId('Checkpoint id.') }),
    },
    responses: { 200: { description: 'The checkpoint.', schema: envelope(checkpointView) } },
    handler: async (req, deps) => ({
      payload: await checkpointsService.getCheckpoint(deps, req.params.checkpoint_id),
    }),
  }),
];
