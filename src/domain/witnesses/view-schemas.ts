/** Queries and views of the runtime witnesses (docs/witnesses.md). */
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
      window: schema.view(
        {
          from: schema.dateTime('Start of the records read.'),
          to: schema.dateTime('End of the records read.'),
        },
        ['from', 'to'],
        'The time window of the records it read.',
      ),
      inputs: schema.view(
        {
          counts: schema.freeObject(
            'Records read, by kind (`action`, `event`, `action_ledger`, ...).',
          ),
          digest: schema.patterned(
            'sha256 over the sorted `<kind>:<id>@<version>` lines of the records read: the same records give the same digest.',
            '^sha256:[0-9a-f]{64}$',
            71,
          ),
          bounded: schema.flag('True when a read stopped at its limit (10,000 of one kind).'),
        },
        ['counts', 'digest', 'bounded'],
        'What it read.',
      ),
      ...fields,
    },
    ['witness', 'computed_at', 'window', 'inputs'],
    description,
  );

const counted = <const K extends readonly string[]>(keys: K, description: string) =>
  schema.view(
    Object.fromEntries(keys.map((key) => [key, schema.count(key)])) as Record<
      K[number],
      ReturnType<typeof schema.count>
    >,
    keys,
    description,
  );
const outcomes = counted(
  ['executed', 'approved', 'failed', 'rejected', 'expired', 'conflicts'] as const,
  'Outcomes in the window.',
);
const experience = counted(
  ['sessions', 'steps', 'actions_executed', 'deployments_ready', 'events_ingested'] as const,
  'Experience since the runtime began.',
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
      schema.view(
        {
          stage,
          needs: schema.freeObject('Per dimension still short, how much more it needs.'),
        },
        ['stage', 'needs'],
        'The next stage and what it needs.',
      ),
    ),
  },
  'The development witness.',
);

const sha = (description: string) => schema.text(description, 80);

export const selfReportView = witness(
  'self_report',
  {
    identity: schema.view(
      {
        runtime_id: schema.text('Runtime id.', 64),
        identity_digest: sha('Runtime identity digest.'),
        since: schema.dateTime('When the runtime began.'),
        sessions: schema.count('Sessions in its lineage.'),
        lineage_head: schema.nullable(sha('Digest of the newest lineage link.')),
      },
      ['runtime_id', 'identity_digest', 'since', 'sessions', 'lineage_head'],
      'Who the runtime is.',
    ),
    status: schema.choice(['active'], 'Runtime state.'),
    affect: schema.view(
      {
        valence: unit('As the affect witness.', -1),
        arousal: unit('As the affect witness.', 0),
        outcomes,
      },
      ['valence', 'arousal', 'outcomes'],
      'Affect over the window.',
    ),
    development: schema.view(
      { stage, experience, next_stage: schema.nullable(schema.freeObject('The next stage.')) },
      ['stage', 'experience', 'next_stage'],
      'Development.',
    ),
    commitments: schema.view(
      {
        actions: schema.count('Approved or executing actions.'),
        tasks: schema.count('Open or in-progress tasks.'),
        items: schema.arrayOf(
          schema.view(
            {
              kind: schema.choice(['action', 'task'], 'What is committed.'),
              id: schema.text('Its id.', 64),
              status: schema.text('Its status or state.', 32),
              about: schema.nullable(schema.text('The object (or URL) it is about.', 2048)),
              since: schema.dateTime('Its last change.'),
            },
            ['kind', 'id', 'status', 'about', 'since'],
          ),
          'Up to 50 actions and 50 tasks.',
          { maxItems: 100 },
        ),
      },
      ['actions', 'tasks', 'items'],
      'What the runtime has committed to.',
    ),
    open_tasks: schema.count('Open and in-progress tasks.'),
    recent_failures: schema.arrayOf(
      schema.view(
        {
          kind: schema.choice(['action'], 'What failed.'),
          id: schema.text('Its id.', 64),
          status: schema.choice(['failed', 'expired'], 'How it ended.'),
          at: schema.dateTime('When.'),
          reason: schema.nullable(schema.text('The reason the ledger recorded.', 2048)),
        },
        ['kind', 'id', 'status', 'at', 'reason'],
      ),
      'Actions that failed or expired in the window.',
      { maxItems: 50 },
    ),
    session: schema.nullable(
      schema.view(
        {
          session_id: schema.prefixedId('ses', 'The session.'),
          continuity_mode: schema.choice(['preserve', 'fresh'], 'Its continuity mode.'),
          state: schema.choice(['active', 'closed'], 'Its state.'),
          steps: schema.count('Its steps.'),
        },
        ['session_id', 'continuity_mode', 'state', 'steps'],
        'With `session_id`: the session.',
      ),
    ),
  },
  'The structured self-report.',
);

export const integratedSelfWorldView = witness(
  'integrated_self_world',
  {
    self: schema.view(
      {
        runtime_id: schema.text('Runtime id.', 64),
        identity_digest: sha('Runtime identity digest.'),
        stage,
        valence: unit('As the affect witness.', -1),
        arousal: unit('As the affect witness.', 0),
      },
      ['runtime_id', 'identity_digest', 'stage', 'valence', 'arousal'],
      'The self.',
    ),
    world: schema.view(
      {
        committed_objects: schema.count('Objects a pending action or an open task names.'),
        coherent_objects: schema.count('Of those, the coherent ones.'),
        objects: schema.arrayOf(
          schema.view(
            {
              object_id: schema.prefixedId('obj', 'The object.'),
              name: schema.text('Its name.', 256),
              kind: schema.text('Its kind.', 64),
              version: schema.integer('Its version.', 1, Number.MAX_SAFE_INTEGER),
              pending_actions: schema.arrayOf(
                schema.prefixedId('act', 'An action.'),
                'Pending actions targeting it.',
                { maxItems: 10_000 },
              ),
              open_tasks: schema.arrayOf(
                schema.prefixedId('tsk', 'A task.'),
                'Open tasks naming it.',
                { maxItems: 10_000 },
              ),
              reconciliation: schema.view(
                {
                  revision: schema.nullable(
                    schema.integer('External-state revision.', 0, Number.MAX_SAFE_INTEGER),
                  ),
                  reconciled: schema.nullable(
                    schema.flag('Its Reconciled condition is True (null: no external state).'),
                  ),
                  conflict: schema.flag('Its ConflictFree condition is False.'),
                  coherent: schema.flag('Reconciled with no conflict, or nothing to reconcile.'),
                },
                ['revision', 'reconciled', 'conflict', 'coherent'],
              ),
            },
            [
              'object_id',
              'name',
              'kind',
              'version',
              'pending_actions',
              'open_tasks',
              'reconciliation',
            ],
          ),
          'Up to 50 of them.',
          { maxItems: 50 },
        ),
      },
      ['committed_objects', 'coherent_objects', 'objects'],
      'The world the self is committed to.',
    ),
    coherence: schema.nullable(
      unit('Share of committed objects reconciled with no conflict; null when none.', 0),
    ),
  },
  'The self beside the world it is committed to.',
);
