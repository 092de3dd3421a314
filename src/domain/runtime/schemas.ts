/**
 * Runtime readouts: the query that focuses them on a session and the views they answer
 * (DESIGN.md section 8). Types are derived from the schemas.
 */
import type { Static } from '@sinclair/typebox';
import {
  arrayOf,
  choice,
  count,
  dateTime,
  filterQuery,
  flag,
  freeObject,
  prefixedId,
  text,
  view,
} from '../../lib/schema';

/** Query of the session-focusable runtime readouts. */
export const runtimeSessionQuery = filterQuery({
  session_id: prefixedId('ses', 'Focus the readout on this session (optional).'),
});
export type RuntimeSessionQuery = Static<typeof runtimeSessionQuery>;

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
const witnessRequired = ['window', 'inputs_digest', 'computed_at'] as const;

/** The continuity report. */
export const continuityView = view(
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
    checkpoints: count('Completed checkpoints of the runtime (the newest are in `lineage`).'),
    session: freeObject(
      'With `session_id`: the session mode, identity, current identity, state and steps.',
    ),
    ...witnessFields,
  },
  ['identity_digest', 'lineage_intact', 'lineage', ...witnessRequired],
);

/** The runtime summary. */
export const runtimeSummaryView = view(
  {
    session_id: prefixedId('ses', 'Present when `session_id` was given.'),
    state: text('Runtime or session state; `active` is a value.', 64),
    summary: text('Human-readable summary.', 4096),
    facts: freeObject('The figures the summary states, machine-readable.'),
  },
  ['state', 'summary'],
);

/** The platform summary. */
export const platformSummaryView = view(
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
);

/** The runtime's status. */
export const runtimeStatusView = view(
  {
    state: choice(['active'], 'Runtime state.'),
    runtime_id: text('Runtime id.', 64),
    identity_digest: text('Runtime identity digest.', 128),
    created_at: dateTime('When the runtime record was created.'),
    version: text('API version.', 32),
    uptime_seconds: count('Seconds this api instance has been up.'),
  },
  ['state', 'runtime_id', 'identity_digest', 'version'],
);
