/**
 * Runtime readouts: the query that focuses them on a session and the views they answer
 * (docs/witnesses.md). Types are derived from the schemas.
 */
import type { Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';

/** Query of the session-focusable runtime readouts. */
export const runtimeSessionQuery = schema.filterQuery({
  session_id: schema.prefixedId('ses', 'Focus the readout on this session (optional).'),
});
export type RuntimeSessionQuery = Static<typeof runtimeSessionQuery>;

/** Fields every witness carries so a readout can be reproduced. */
const witnessFields = {
  window: schema.view(
    {
      from: schema.dateTime('Start of the time window the witness read.'),
      to: schema.dateTime('End of the time window the witness read.'),
    },
    ['from', 'to'],
    'Time window of the records the witness read.',
  ),
  inputs_digest: schema.text('sha256 of the records the readout was computed from.', 128),
  computed_at: schema.dateTime('When the readout was computed.'),
};
const witnessRequired = ['window', 'inputs_digest', 'computed_at'] as const;

/** The continuity report. */
export const continuityView = schema.view(
  {
    session_id: schema.prefixedId('ses', 'Session the report focuses on, when asked.'),
    runtime_id: schema.text('Runtime id.', 64),
    identity_digest: schema.text('Runtime identity digest, the root of the lineage.', 128),
    lineage_intact: schema.flag('True when every link of the lineage verifies.'),
    problems: schema.arrayOf(schema.text('What did not verify.', 256), 'Empty when intact.', {
      maxItems: 64,
    }),
    verified_links: schema.count('Links read and verified (the newest ones).'),
    lineage: schema.arrayOf(
      schema.view(
        {
          kind: schema.choice(['session', 'checkpoint'], 'What the link is.'),
          id: schema.text('Session or checkpoint id.', 64),
          identity_digest: schema.text('Identity digest at that link.', 128),
          at: schema.dateTime('When the link was recorded.'),
        },
        ['kind', 'id', 'identity_digest', 'at'],
      ),
      'Newest links of the identity lineage, newest first.',
      { maxItems: 500 },
    ),
    sessions: schema.count('Sessions in the lineage.'),
    preserved: schema.count('Sessions that preserve their identity across steps.'),
    fresh: schema.count('Sessions that start every step anew.'),
    checkpoints: schema.count(
      'Completed checkpoints of the runtime (the newest are in `lineage`).',
    ),
    session: schema.freeObject(
      'With `session_id`: the session mode, identity, current identity, state and steps.',
    ),
    ...witnessFields,
  },
  ['identity_digest', 'lineage_intact', 'lineage', ...witnessRequired],
);

/** The runtime summary. */
export const runtimeSummaryView = schema.view(
  {
    session_id: schema.prefixedId('ses', 'Present when `session_id` was given.'),
    state: schema.text('Runtime or session state; `active` is a value.', 64),
    summary: schema.text('Human-readable summary.', 4096),
    facts: schema.freeObject('The figures the summary states, machine-readable.'),
  },
  ['state', 'summary'],
);

/** The platform summary. */
export const platformSummaryView = schema.view(
  {
    service: schema.text('Service name.', 128),
    version: schema.text('API version (1.1.0).', 32),
    families: schema.arrayOf(
      schema.view(
        {
          family: schema.text('Route family.', 64),
          exposure: schema.text('Exposure of the family.', 64),
          min_entitlement: schema.text('Minimum entitlement class.', 32),
          min_layer: schema.text('Minimum access layer, by name.', 32),
          routes: schema.count('Routes in the family (0 for planned ones).'),
          planned: schema.flag('True for families announced for later layers.'),
        },
        ['family', 'exposure', 'min_entitlement', 'min_layer'],
      ),
      'Public route families.',
      { maxItems: 64 },
    ),
    routes: schema.count('Routes in the public families.'),
    counts: schema.freeObject('Headline record counts (sessions, world objects, actions...).'),
    computed_at: schema.dateTime('When the summary was computed.'),
  },
  ['service', 'version', 'families'],
);

/** The runtime's status. */
export const runtimeStatusView = schema.view(
  {
    state: schema.choice(['active'], 'Runtime state.'),
    runtime_id: schema.text('Runtime id.', 64),
    identity_digest: schema.text('Runtime identity digest.', 128),
    created_at: schema.dateTime('When the runtime record was created.'),
    version: schema.text('API version.', 32),
    uptime_seconds: schema.count('Seconds this api instance has been up.'),
  },
  ['state', 'runtime_id', 'identity_digest', 'version'],
);
