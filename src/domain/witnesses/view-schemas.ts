/** Queries and views of the runtime witnesses (DESIGN.md section 8; docs/witnesses.md). */
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { DEVELOPMENT_STAGES } from './development';

/** Query of the runtime witnesses. */
export const runtimeWitnessQuery = schema.filterQuery({
  session_id: schema.prefixedId('ses', 'Focus the readout on this session (optional).'),
  window_seconds: schema.integer(
    'Time window of the readout, ending now, in seconds.',
    60,
    2_592_000,
    3600,
  ),
});
export type RuntimeWitnessQuery = Static<typeof runtimeWitnessQuery>;

const unit = (description: string, minimum: number) =>
  Type.Number({ minimum, maximum: 1, description });

/** The fields every witness carries, and what a view adds to them. */
export const witness = <P extends TProperties>(name: string, fields: P, description: string) =>
  schema.view(
    {
      witness: schema.choice([name], 'Which witness this is.'),
      computed_at: schema.dateTime('When it was computed.'),
      window: schema.freeObject('`from` and `to` of the records it read (ISO 8601).'),
      inputs: schema.freeObject(
        '`counts` of the records read by kind, `digest` (sha256 over their sorted ids and versions: the same records give the same digest) and `bounded` (a read limit was reached).',
      ),
      ...fields,
    },
    ['witness', 'computed_at', 'window', 'inputs'],
    description,
  );

const outcomes = schema.freeObject(
  'Outcomes in the window: `executed`, `approved`, `failed`, `rejected`, `expired`, `conflicts`.',
);
const experience = schema.freeObject(
  '`sessions`, `steps`, `actions_executed`, `deployments_ready`, `events_ingested`.',
);
const stage = schema.choice(DEVELOPMENT_STAGES, 'Developmental stage.');

export const affectView = witness(
  'affect',
  {
    valence: unit('(good − bad) / (good + bad) outcomes; 0 when none.', -1),
    arousal: unit('Outcomes per minute of window, capped at 1.', 0),
    outcomes,
  },
  'The affect witness.',
);

export const developmentView = witness(
  'development',
  {
    stage,
    experience,
    next_stage: schema.nullable(
      schema.freeObject('The next `stage` and what each short dimension `needs`.'),
    ),
  },
  'The development witness.',
);

export const selfReportView = witness(
  'self_report',
  {
    identity: schema.freeObject(
      '`runtime_id`, `identity_digest`, `since`, `sessions`, `lineage_head`.',
    ),
    status: schema.choice(['active'], 'Runtime state.'),
    affect: schema.freeObject('`valence`, `arousal`, `outcomes` over the window.'),
    development: schema.freeObject('`stage`, `experience`, `next_stage`.'),
    commitments: schema.freeObject(
      '`actions` (approved, executing) and `tasks` (open, in progress) counts, and `items`.',
    ),
    open_tasks: schema.count('Open and in-progress tasks.'),
    recent_failures: schema.arrayOf(
      schema.freeObject('`kind`, `id`, `status`, `at`, `reason`.'),
      'Actions that failed or expired in the window.',
      { maxItems: 50 },
    ),
    session: schema.nullable(schema.freeObject('With `session_id`: its mode, state and steps.')),
  },
  'The structured self-report.',
);

export const integratedSelfWorldView = witness(
  'integrated_self_world',
  {
    self: schema.freeObject('`runtime_id`, `identity_digest`, `stage`, `valence`, `arousal`.'),
    world: schema.freeObject(
      '`committed_objects`, `coherent_objects`, and `objects`: each with its pending actions, open tasks and `reconciliation` (`revision`, `reconciled`, `conflict`, `coherent`).',
    ),
    coherence: schema.nullable(
      unit('Share of committed objects reconciled with no conflict; null when none.', 0),
    ),
  },
  'The self beside the world it is committed to.',
);
