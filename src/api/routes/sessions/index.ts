import * as sessionsSchemas from '../../../domain/sessions/schemas';
import { createSession, getSession, stepSession } from '../../../domain/sessions/sessions.service';
import { pathParams, prefixedId } from '../../../lib/schema';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope, handOn } from '../common';

const sessionParams = pathParams({ session_id: prefixedId('ses', 'Session id.') });

/** Communicative sessions: create, inspect, step. */
export const sessionsRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'sessions.create',
    method: 'POST',
    path: '/v1/sessions',
    family: 'sessions',
    summary: 'create session',
    description:
      'Creates a new session (every call makes a new one). `continuity_mode` `preserve` (default) keeps an identity digest and memory across steps; `fresh` starts each step from no memory.',
    request: {
      body: {
        name: 'SessionCreateRequest',
        required: true,
        schema: sessionsSchemas.sessionCreateBody,
      },
    },
    responses: {
      201: {
        description: 'The new session.',
        schema: envelope(sessionsSchemas.sessionView),
        links: handOn('session_id', '/payload/session_id', {
          path: { Get: 'sessions.get', Step: 'sessions.step' },
        }),
      },
    },
    idempotent: true,
    handler: async (req, deps) => ({
      status: 201,
      payload: await createSession(deps, req.auth, req.body),
    }),
  }),

  defineRoute({
    operationId: 'sessions.get',
    method: 'GET',
    path: '/v1/sessions/{session_id}',
    family: 'sessions',
    summary: 'inspect session',
    description: 'Returns the session record: mode, state and step count. Creates nothing.',
    request: { params: sessionParams },
    responses: {
      200: { description: 'The session.', schema: envelope(sessionsSchemas.sessionView) },
    },
    handler: async (req, deps) => ({ payload: await getSession(deps, req.params.session_id) }),
  }),

  defineRoute({
    operationId: 'sessions.step',
    method: 'POST',
    path: '/v1/sessions/{session_id}/step',
    family: 'sessions',
    summary: 'step session',
    description:
      'Runs one command (`list_objects`, `inspect_object`, `observe_world`, `note`, `recall`, `summarize`, `close`) as the next step of the session and records it. An unknown command or bad arguments are 422 (a note referring to an unknown object too); inspecting an unknown object or an unknown session is 404; a step on a closed session is 409 `invalid_state`. Failed steps take no step number. See docs/sessions.md.',
    request: {
      params: sessionParams,
      body: {
        name: 'SessionStepRequest',
        schema: sessionsSchemas.sessionStepBody,
      },
    },
    responses: {
      409: { description: 'The session is closed.' },
      200: {
        description: 'The step result.',
        schema: envelope(sessionsSchemas.stepResultView),
      },
    },
    handler: async (req, deps) => ({
      payload: await stepSession(deps, req.auth, req.params.session_id, req.body),
    }),
  }),
];
