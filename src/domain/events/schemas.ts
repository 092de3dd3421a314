/** Schemas of the reconciled external state and of reconciliation outcomes (views). */
import {
  arrayOf,
  choice,
  contextRef,
  count,
  dateTime,
  freeObject,
  idRef,
  nullable,
  text,
  view,
} from '../../lib/schema';

/** A Kubernetes-style condition on a reconciled object. */
export const conditionView = view(
  {
    type: text('Condition type, e.g. `Reconciled`.'),
    status: choice(['True', 'False', 'Unknown'], 'Condition status.'),
    reason: text('Machine-readable CamelCase reason.'),
    message: text('Human-readable explanation.', 1024, 0),
    last_transition_time: dateTime('When the status last changed.'),
  },
  ['type', 'status', 'last_transition_time'],
  'A Kubernetes-style condition.',
);

/** Reconciled external state of one world object. */
export const externalStateView = view(
  {
    object_id: idRef('obj', 'World object id.'),
    fields: freeObject('Merged external fields (newest `occurred_at` wins per field).'),
    generation: count('Bumped by every applied event.'),
    observed_generation: count('Generation the reconciler has fully processed.'),
    conditions: arrayOf(conditionView, 'Current conditions.', { maxItems: 64 }),
    last_event_id: nullable(idRef('evt', 'Newest applied event.')),
    updated_at: dateTime('When the external state last changed.'),
  },
  ['object_id', 'fields', 'generation', 'observed_generation', 'conditions'],
  'Reconciled external state of one world object.',
);

/** Reconciliation outcomes of an ingested event. */
export const RECONCILIATION_OUTCOMES = ['applied', 'stale', 'unmatched', 'conflict'] as const;

/** The reconciliation output of one ingested event. */
export const reconciliationView = view(
  {
    event_id: idRef('evt', 'Ingested event id.'),
    reconciliation_id: idRef('rec', 'Reconciliation record id.'),
    outcome: choice(RECONCILIATION_OUTCOMES, 'What reconciliation did with the event.'),
    world_object_ref: nullable(text('World object the event named.', 128)),
    shared_context_id: nullable(contextRef('Shared context the event named.')),
    applied_fields: arrayOf(text('Field name.', 128), 'Fields merged into the object.', {
      maxItems: 256,
    }),
    reason: nullable(text('Why the event was stale, unmatched or in conflict.', 1024)),
    generation: nullable(count('Object generation after the event.')),
    reconciled_at: dateTime('When the event was reconciled.'),
  },
  ['event_id', 'outcome', 'reconciled_at'],
  'Reconciliation output of one ingested event.',
);
