import { whoAmI } from '../../../domain/principals/whoami.service';
import { whoAmIView } from '../../../domain/principals/whoami-view';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope } from '../common';

/** The calling key's own identity: open to every valid key (family `principals_self`). */
export const meRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'principals.me',
    method: 'GET',
    path: '/v1/principals/me',
    family: 'principals_self',
    summary: 'who the calling key is',
    description:
      "The calling key (never its secret), its principal, organization, role, entitlement class and access layer, the route families it may call, the limits it runs under and the Temporal UI's address: what a console or `gr keys whoami` shows. Keys belong to an organization, not to a project, so no project is named. Any valid key; reads only.",
    responses: {
      200: { description: 'Who the calling key is.', schema: envelope(whoAmIView) },
    },
    handler: async (req, deps) => ({ payload: await whoAmI(deps, req.auth) }),
  }),
];
