import { getContinuity } from '../../domain/runtime/continuity.service';
import { getPlatformSummary } from '../../domain/runtime/platform-summary.service';
import { getRuntimeSummary } from '../../domain/runtime/runtime-summary.service';
import { defineRoute, type RouteDefinition } from '../route';
import { envelope, notImplemented, prefixedId } from './common';
import {
  arrayOf,
  choice,
  count,
  dateTime,
  decimal,
  flag,
  freeObject,
  idRef,
  nullable,
  text,
  view,
  type NoParams,
  type NoQuery,
} from './schemas';

const TAGS = ['runtime'];

/** Query of the session-focusable runtime readouts. */
export type RuntimeSessionQuery = { session_id?: string };

const sessionQuery = {
  type: 'object',
  properties: {
    session_id: prefixedId('ses', 'Focus the readout on this session (optional).'),
  },
};

/** Fields every witness carries so a readout can be reproduced. */
const witnessFields = {
  window: view(
    {
      from: dateTime('Start of the time window the witness read.'),
      to: dateTime('End of the time window the witness read.'),
    },
    ['from', 'to'],
    'Time window of the records the witness read.',
  ),
  inputs_digest: text('sha256 of the records the readout was computed from.', 128),
  computed_at: dateTime('When the readout was computed.'),
};
const witnessRequired = ['window', 'inputs_digest', 'computed_at'];

/** Runtime readouts and the platform summary (the owner adds `GET /v1/runtime/status`). */
export const runtimeRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'runtime.affect',
    method: 'GET',
    path: '/v1/runtime/affect',
    family: 'runtime_witness',
    summary: 'affective witness readout',
    description:
      'Returns the runtime affect: valence from recent outcomes (executed and approved actions count up; failures, rejections and conflicts count down) and arousal from the activity rate, with the inputs behind them.',
    tags: TAGS,
    responses: {
      200: {
        description: 'The affect readout.',
        schema: envelope(
          view(
            {
              valence: decimal('Valence, -1 (negative) to 1 (positive).', -1, 1),
              arousal: decimal('Arousal, 0 (idle) to 1 (busy).', 0, 1),
              inputs: view(
                {
                  executed: count('Actions executed in the window.'),
                  approved: count('Actions approved in the window.'),
                  failed: count('Actions failed in the window.'),
                  rejected: count('Actions rejected in the window.'),
                  conflicts: count('Conflicts (409) and reconciliation conflicts in the window.'),
                  events: count('Records of any kind in the window (activity).'),
                },
                [],
                'Counts the readout was computed from.',
              ),
              ...witnessFields,
            },
            ['valence', 'arousal', 'inputs', ...witnessRequired],
          ),
        ),
      },
    },
    handler: notImplemented('The runtime affect witness'),
  }),

  defineRoute({
    operationId: 'runtime.continuity',
    method: 'GET',
    path: '/v1/runtime/continuity',
    family: 'runtime_basic',
    summary: 'continuity witness report',
    description:
      'Returns the identity lineage of the runtime across sessions and checkpoints: a hash chain of one link per session rooted in the runtime identity digest, its newest links verified, the session counts from its head, optionally focused on one session (an unknown one is 404). Reads only; see docs/sessions.md.',
    tags: TAGS,
    request: { query: sessionQuery },
    responses: {
      200: {
        description: 'The continuity report.',
        schema: envelope(
          view(
            {
              session_id: prefixedId('ses', 'Session the report focuses on, when asked.'),
              runtime_id: text('Runtime id.', 64),
              identity_digest: text('Runtime identity digest, the root of the lineage.', 128),
              lineage_intact: flag('True when every link of the lineage verifies.'),
              problems: arrayOf(text('What did not verify.', 256), 'Empty when intact.', {
                maxItems: 64,
              }),
              verified_links: count('Links read and verified (the newest ones).'),
              lineage: arrayOf(
                view(
                  {
                    kind: choice(['session', 'checkpoint'], 'What the link is.'),
                    id: text('Session or checkpoint id.', 64),
                    identity_digest: text('Identity digest at that link.', 128),
                    at: dateTime('When the link was recorded.'),
                  },
                  ['kind', 'id', 'identity_digest', 'at'],
                ),
                'Newest links of the identity lineage, newest first.',
                { maxItems: 500 },
              ),
              sessions: count('Sessions in the lineage.'),
              preserved: count('Sessions that preserve their identity across steps.'),
              fresh: count('Sessions that start every step anew.'),
              checkpoints: count('Checkpoints in the lineage (none until checkpoints are built).'),
              session: freeObject(
                'With `session_id`: the session mode, identity, current identity, state and steps.',
              ),
              ...witnessFields,
            },
            ['identity_digest', 'lineage_intact', 'lineage', ...witnessRequired],
          ),
        ),
      },
    },
    handler: async (req, deps) => ({ payload: await getContinuity(deps, req.query) }),
  }),

  defineRoute({
    operationId: 'runtime.development',
    method: 'GET',
    path: '/v1/runtime/development',
    family: 'runtime_witness',
    summary: 'developmental witness summary',
    description:
      'Returns the developmental stage of the runtime, derived from its cumulative experience (sessions, steps, actions, events), and what the next stage needs.',
    tags: TAGS,
    responses: {
      200: {
        description: 'The development readout.',
        schema: envelope(
          view(
            {
              stage: text('Current developmental stage.', 64),
              experience: freeObject('Cumulative experience counters the stage derives from.'),
              next_stage: nullable(text('Next stage, or null at the last one.', 64)),
              progress: decimal('Progress towards the next stage, 0..1.', 0, 1),
              ...witnessFields,
            },
            ['stage', 'experience', ...witnessRequired],
          ),
        ),
      },
    },
    handler: notImplemented('The runtime development witness'),
  }),

  defineRoute({
    operationId: 'runtime.integratedSelfWorld',
    method: 'GET',
    path: '/v1/runtime/integrated-self-world',
    family: 'runtime_witness',
    summary: 'integrated self-world witness report',
    description:
      'Combines the self readouts (continuity, affect, development) with the world objects the runtime is committed to through open tasks and pending actions.',
    tags: TAGS,
    responses: {
      200: {
        description: 'The integrated self-world report.',
        schema: envelope(
          view(
            {
              self: freeObject('Continuity, affect and development in brief.'),
              world: view(
                {
                  history_head: nullable(idRef('evt', 'Newest world history event.')),
                  objects: count('World objects.'),
                },
                [],
                'World state in brief.',
              ),
              commitments: arrayOf(
                view(
                  {
                    object_id: idRef('obj', 'World object committed to.'),
                    via: text('Task or action id carrying the commitment.', 64),
                    kind: choice(['task', 'action'], 'What carries the commitment.'),
                  },
                  ['object_id', 'via', 'kind'],
                ),
                'World objects the runtime is committed to.',
                { maxItems: 500 },
              ),
              ...witnessFields,
            },
            ['self', 'world', 'commitments', ...witnessRequired],
          ),
        ),
      },
    },
    handler: notImplemented('The integrated self-world witness'),
  }),

  defineRoute({
    operationId: 'runtime.selfReport',
    method: 'GET',
    path: '/v1/runtime/self-report',
    family: 'runtime_witness',
    summary: 'structured self report',
    description:
      'Returns a structured self report: identity, state, affect, development and current commitments, each with the records it rests on.',
    tags: TAGS,
    responses: {
      200: {
        description: 'The self report.',
        schema: envelope(
          view(
            {
              identity_digest: text('Current identity digest.', 128),
              state: text('Runtime state, e.g. `active`.', 64),
              affect: freeObject('Valence and arousal.'),
              development: freeObject('Stage and progress.'),
              commitments: count('Open commitments (tasks and pending actions).'),
              statements: arrayOf(
                text('One statement of the report.', 1024),
                'The report as short statements.',
                { maxItems: 64 },
              ),
              ...witnessFields,
            },
            ['identity_digest', 'state', 'statements', ...witnessRequired],
          ),
        ),
      },
    },
    handler: notImplemented('The runtime self report'),
  }),

  defineRoute({
    operationId: 'runtime.summary',
    method: 'GET',
    path: '/v1/runtime/summary',
    family: 'runtime_basic',
    summary: 'build-safe runtime summary',
    description:
      'Returns a short, build-safe summary of the runtime (state and a one-paragraph summary, with the facts it states); with `session_id` it focuses on that session (an unknown one is 404). Not paginated; creates nothing.',
    tags: TAGS,
    request: { query: sessionQuery },
    responses: {
      200: {
        description: 'The runtime summary.',
        schema: envelope(
          view(
            {
              session_id: prefixedId('ses', 'Present when `session_id` was given.'),
              state: text('Runtime or session state; `active` is a value.', 64),
              summary: text('Human-readable summary.', 4096),
              facts: freeObject('The figures the summary states, machine-readable.'),
            },
            ['state', 'summary'],
          ),
        ),
      },
    },
    handler: async (req, deps) => ({ payload: await getRuntimeSummary(deps, req.query) }),
  }),

  defineRoute({
    operationId: 'platform.summary',
    method: 'GET',
    path: '/v1/platform/summary',
    family: 'runtime_basic',
    summary: 'build-safe platform summary',
    description:
      'Returns a build-safe description of the platform: API version, the route families with their exposure, and headline counts of the durable records.',
    tags: TAGS,
    responses: {
      200: {
        description: 'The platform summary.',
        schema: envelope(
          view(
            {
              service: text('Service name.', 128),
              version: text('API version (1.1.0).', 32),
              families: arrayOf(
                view(
                  {
                    family: text('Route family.', 64),
                    exposure: text('Exposure of the family.', 64),
                    min_entitlement: text('Minimum entitlement class.', 32),
                    min_layer: text('Minimum access layer, by name.', 32),
                    routes: count('Routes in the family (0 for planned ones).'),
                    planned: flag('True for families announced for later layers.'),
                  },
                  ['family', 'exposure', 'min_entitlement', 'min_layer'],
                ),
                'Public route families.',
                { maxItems: 64 },
              ),
              routes: count('Routes in the public families.'),
              counts: freeObject('Headline record counts (sessions, world objects, actions...).'),
              computed_at: dateTime('When the summary was computed.'),
            },
            ['service', 'version', 'families'],
          ),
        ),
      },
    },
    handler: async (_req, deps) => {
      // The route table index imports this file: read it when called, not when loaded.
      const { apiRoutes } = await import('./index');
      return { payload: await getPlatformSummary(deps, apiRoutes) };
    },
  }),
];
