import {
  requestSandboxAccess,
  type SandboxAccessRequest,
} from '../../domain/governance/access-request.service';
import { defineRoute } from '../route';
import { closedObject } from './common';

const accessGrant = {
  type: 'object',
  description: 'The sandbox grant. Not wrapped in the envelope; `api_key` is shown this once.',
  properties: {
    api_key: {
      type: 'string',
      description: 'The secret key, `grk_<key_id>_<secret>`. Store it now.',
    },
    entitlement: { type: 'string', enum: ['sandbox'] },
    access_layer: { type: 'string', enum: ['layer0_public'] },
    limits: {
      type: 'object',
      properties: {
        requests_per_minute: { type: 'integer' },
        daily_quota: { type: 'integer' },
      },
      required: ['requests_per_minute', 'daily_quota'],
    },
    key_id: { type: 'string', description: 'Public handle of the key.' },
  },
  required: ['api_key', 'entitlement', 'access_layer', 'limits', 'key_id'],
};

/** The public sandbox-key issuance route. */
export const accessRoutes = [
  defineRoute({
    operationId: 'access.request',
    method: 'POST',
    path: '/v1/access/request',
    family: 'public',
    summary: 'Sandbox API-key issuance',
    description:
      'Issues a sandbox key (layer 0) at once, no key needed. One grant per e-mail address (case-insensitive; a repeat is 409); limited per client address per hour.',
    tags: ['access'],
    request: {
      body: {
        name: 'SandboxAccessRequest',
        schema: closedObject(
          {
            name: {
              type: 'string',
              minLength: 1,
              maxLength: 200,
              description: 'Who the key is for.',
            },
            email: {
              type: 'string',
              format: 'email',
              maxLength: 254,
              description: 'Contact e-mail; one grant per address.',
            },
            intended_use: {
              type: 'string',
              minLength: 1,
              maxLength: 2000,
              description: 'What the key will be used for.',
            },
          },
          ['name', 'email', 'intended_use'],
        ),
      },
    },
    responses: {
      200: { description: 'The access grant (bare, no envelope).', schema: accessGrant },
      409: { description: 'A grant already exists for this e-mail address.' },
      429: { description: 'Too many access requests from this client address.' },
    },
    handler: async (req, deps) => ({
      bare: await requestSandboxAccess(deps, req.body, req.clientIp, req.requestId),
    }),
  }),
];
