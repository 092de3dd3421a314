import { defineRoute, type RouteDefinition } from '../route';
import { createSession, getSession, stepSession } from '../../domain/sessions/sessions.service';
import { closedObject, envelope, pathParams, prefixedId } from './common';
import {
  choice,
  contextRef,
  count,
  dateTime,
  flag,
  freeObject,
  nullable,
  text,
  view,
  type NoParams,
  type NoQuery,
} from './schemas';

const TAGS = ['sessions'];

/** Continuity modes of a session (DESIGN.md section 5). */
export const CONTINUITY_MODES = ['preserve', 'fresh'] as const;
export type ContinuityMode = (typeof CONTINUITY_MODES)[number];

/** Commands a step can run (`input_packet.command`); docs/sessions.md describes each. */
export const SESSION_COMMANDS = [
  'list_objects',
  'inspect_object',
  'observe_world',
  'note',
  'recall',
  'summarize',
  'close',
] as const;
export type SessionCommand = (typeof SESSION_COMMANDS)[number];

/** Body of `POST /v1/sessions`: every field optional, the object itself required. */
export interface SessionCreateRequest {
  continuity_mode?: ContinuityMode;
  shared_context_id?: string;
}

/** Body of `POST /v1/sessions/{session_id}/step`. */
export interface SessionStepRequest {
  input_packet: { command: SessionCommand; args?: Record<string, unknown> };
}

type SessionParams = { session_id: string };

const sessionParams = pathParams({ session_id: prefixedId('ses', 'Session id.') });

const sessionView = view(
  {
    session_id: prefixedId('ses', 'Session id.'),
    created_at: dateTime('When the session was created.'),
    continuity_mode: choice(CONTINUITY_MODES, 'How the session carries memory across steps.'),
    state: choice(['active', 'closed'], 'Session state.'),
    step_count: count('Steps taken so far.'),
    shared_context_id: contextRef('Shared context the session belongs to, when named.'),
    last_step_at: nullable(dateTime('When the newest step was taken; null before the first.')),
  },
  ['session_id', 'created_at', 'continuity_mode', 'state', 'step_count'],
  'A communicative session.',
);

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
    tags: TAGS,
    request: {
      body: {
        name: 'SessionCreateRequest',
        required: true,
        schema: closedObject({
          continuity_mode: choice(
            CONTINUITY_MODES,
            '`preserve` keeps identity and memory across steps; `fresh` starts every step anew.',
            'preserve',
          ),
          shared_context_id: contextRef('Shared context this session works in (optional).'),
        }),
      },
    },
    responses: { 201: { description: 'The new session.', schema: envelope(sessionView) } },
    idempotent: true,
    handler: async (req, deps) => ({
      status: 201,
      payload: await createSession(deps, req.auth!, req.body),
    }),
  }),

  defineRoute({
    operationId: 'sessions.get',
    method: 'GET',
    path: '/v1/sessions/{session_id}',
    family: 'sessions',
    summary: 'inspect session',
    description: 'Returns the session record: mode, state and step count. Creates nothing.',
    tags: TAGS,
    request: { params: sessionParams },
    responses: { 200: { description: 'The session.', schema: envelope(sessionView) } },
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
    tags: TAGS,
    request: {
      params: sessionParams,
      body: {
        name: 'SessionStepRequest',
        schema: closedObject(
          {
            input_packet: closedObject(
              {
                command: choice(
                  SESSION_COMMANDS,
                  'Command to run: `list_objects {kind?, limit?}`, `inspect_object {object_id}`, `observe_world {}`, `note {text, refs?}`, `recall {}`, `summarize {}` or `close {}`. Any other is 422 naming these.',
                ),
                args: freeObject('Command arguments, e.g. `{"kind": "service"}`.', 64),
              },
              ['command'],
              'The command of this step and its arguments.',
            ),
          },
          ['input_packet'],
        ),
      },
    },
    responses: {
      200: {
        description: 'The step result.',
        schema: envelope(
          view(
            {
              session_id: prefixedId('ses', 'Session id.'),
              step: count('Number of this step (1 for the first).'),
              command: text('Command that ran.', 64),
              output: freeObject('Command output.'),
              state: choice(['active', 'closed'], 'Session state after this step.'),
              at: dateTime('When the step was taken.'),
              continuity: view(
                {
                  identity_stable: flag('True when identity carried over (`preserve` mode).'),
                  identity_digest: text(
                    'Identity the step ran under: the session identity in `preserve` mode (the same every step), a new digest each step in `fresh` mode.',
                    128,
                  ),
                  steps: count('Steps taken so far, this one included.'),
                  continuity_mode: choice(CONTINUITY_MODES, 'Continuity mode of the session.'),
                  memory_digest: nullable(
                    text('Hash chain over the notes carried (`preserve`); null in `fresh`.', 128),
                  ),
                },
                ['identity_stable'],
                'Continuity of the session after this step.',
              ),
            },
            ['session_id', 'step', 'command', 'output', 'continuity'],
          ),
        ),
      },
    },
    handler: async (req, deps) => ({
      payload: await stepSession(deps, req.auth!, req.params.session_id, req.body),
    }),
  }),
];
