import { requestSandboxAccess } from '../../../domain/access/access-request.service';
import { sandboxAccessBody } from '../../../domain/governance/schemas';
import { accessGrantView } from '../../../domain/governance/view-schemas';
import { defineRoute, type RouteDefinition } from '../../route';

/** The public sandbox-key issuance route. */
export const accessRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'access.request',
    method: 'POST',
    path: '/v1/access/request',
    family: 'public',
    summary: 'Sandbox API-key issuance',
    description:
      'Issues a sandbox key (layer 0) at once, no key needed. One grant per e-mail address (case-insensitive; a repeat is 409); limited per client address per hour.',
    request: { body: { name: 'SandboxAccessRequest', schema: sandboxAccessBody } },
    responses: {
      200: { description: 'The access grant (bare, no envelope).', schema: accessGrantView },
      409: { description: 'A grant already exists for this e-mail address.' },
      429: { description: 'Too many access requests from this client address.' },
    },
    addressLimited: true,
    // Not idempotent today (a repeat is 409 by e-mail); declared so it never could store it.
    secretFields: ['api_key'],
    handler: async (req, deps) => ({
      bare: await requestSandboxAccess(deps, req.body, req.requestId),
    }),
  }),
];
