import { getRuntimeStatus } from '../../domain/runtime/runtime-status.service';
import { defineRoute } from '../route';
import { envelope } from './common';

/** `GET /v1/runtime/status`: the runtime's identity and liveness, read from its record. */
export const runtimeStatusRoutes = [
  defineRoute({
    operationId: 'runtime.status',
    method: 'GET',
    path: '/v1/runtime/status',
    family: 'runtime_basic',
    summary: 'continuity and status',
    description:
      "The runtime's state, identity (runtime id and identity digest, stable for the life of the database) and this api instance's version and uptime.",
    tags: ['runtime'],
    responses: {
      200: {
        description: 'Runtime status.',
        schema: envelope({
          type: 'object',
          properties: {
            state: { type: 'string', enum: ['active'] },
            runtime_id: { type: 'string' },
            identity_digest: { type: 'string' },
            created_at: { type: 'string', format: 'date-time' },
            version: { type: 'string' },
            uptime_seconds: { type: 'integer' },
          },
        }),
      },
    },
    handler: async (_req, deps) => ({ payload: await getRuntimeStatus(deps) }),
  }),
];
