import { defineRoute, type RouteDefinition } from '../route';
import { closedObject, envelope, notImplemented, pathParams, prefixedId } from './common';
import {
  choice,
  contextRef,
  count,
  dateTime,
  flag,
  freeObject,
  text,
  view,
  type NoParams,
  type NoQuery,
} from './schemas';

const ISSUE = 4;
const TAGS = ['sessions'];

/** Continuity modes of a session (DESIGN.md section 5). */
export const CONTINUITY_MODES = ['preserve', 'fresh'] as const;
export type ContinuityMode = (typeof CONTINUITY_MODES)[number];

/** Body of `POST /v1/sessions`: every field optional, the object itself required. */
export interface SessionCreateRequest {
  continuity_mode?: ContinuityMode;
  shared_context_id?: string;
}

/** Body of `POST /v1/sessions/{session_id}/step`. */
export interface SessionStepRequest {
  input_packet: { command: string; args?: Record<string, unknown> };
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
  },
  ['session_id', 'created_at', 'continuity_mode', 'state', 'step_count'],
  'A communicative session.',
);

/** Communicative sessions: create, inspect, step. */
export const sessionsRoutes: RouteDefinition[] = [
  defineRoute<SessionCreateRequest, NoQuery, NoParams>({
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
    handler: notImplemented('Session creation', ISSUE),
  }),

  defineRoute<unknown, NoQuery, SessionParams>({
    operationId: 'sessions.get',
    method: 'GET',
    path: '/v1/sessions/{session_id}',
    family: 'sessions',
    summary: 'inspect session',
    description: 'Returns the session record: mode, state and step count. Creates nothing.',
    tags: TAGS,
    request: { params: sessionParams },
    responses: { 200: { description: 'The session.', schema: envelope(sessionView) } },
    handler: notImplemented('Session inspection', ISSUE),
  }),

  defineRoute<SessionStepRequest, NoQuery, SessionParams>({
    operationId: 'sessions.step',
    method: 'POST',
    path: '/v1/sessions/{session_id}/step',
    family: 'sessions',
    summary: 'step session',
    description:
      'Runs one command (`list_objects`, `inspect_object`, `observe_world`, `note`, `recall`, `summarize`, `close`) and advances the session. An unknown command is 422 naming the known ones; a step on a closed session is 409.',
    tags: TAGS,
    request: {
      params: sessionParams,
      body: {
        name: 'SessionStepRequest',
        schema: closedObject(
          {
            input_packet: closedObject(
              {
                command: text('Command to run, e.g. `list_objects`.', 64),
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
              continuity: view(
                {
                  identity_stable: flag('True when identity carried over (`preserve` mode).'),
                  identity_digest: text('Digest of the session identity and memory.', 128),
                  steps: count('Steps taken so far.'),
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
    handler: notImplemented('Session steps', ISSUE),
  }),
];
