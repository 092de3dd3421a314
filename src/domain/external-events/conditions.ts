import type { ExternalCondition, ExternalState } from '../../store/world-external-state.repo';

/** Condition types of an object's external state. */
export const CONDITION_TYPES = {
  /** Every merged change is recorded in the world history and projected onto the object. */
  reconciled: 'Reconciled',
  /** No field currently holds a value that sources disputed at the same `occurred_at`. */
  conflictFree: 'ConflictFree',
} as const;

type DesiredCondition = Omit<ExternalCondition, 'last_transition_time'>;

/**
 * Sets conditions the Kubernetes way: `last_transition_time` moves only when a condition's
 * status changes; reason and message follow the latest evaluation.
 */
export function withConditions(
  previous: readonly ExternalCondition[],
  desired: readonly DesiredCondition[],
  now: string,
): ExternalCondition[] {
  const byType = new Map(previous.map((condition) => [condition.type, condition]));
  return desired.map((condition) => {
    const before = byType.get(condition.type);
    return {
      ...condition,
      last_transition_time:
        before && before.status === condition.status ? before.last_transition_time : now,
    };
  });
}

/** The conditions of a state whose changes are all recorded. */
export function settledConditions(
  state: Pick<ExternalState, 'generation' | 'provenance' | 'conditions'>,
  now: string,
): ExternalCondition[] {
  const disputed = Object.entries(state.provenance)
    .filter(([, provenance]) => provenance.conflict)
    .map(([field]) => field)
    .sort();
  return withConditions(
    state.conditions,
    [
      {
        type: CONDITION_TYPES.reconciled,
        status: 'True',
        reason: 'Recorded',
        message: `generation ${state.generation} is merged, in the world history and on the object`,
      },
      disputed.length === 0
        ? {
            type: CONDITION_TYPES.conflictFree,
            status: 'True',
            reason: 'NoConflicts',
            message: '',
          }
        : {
            type: CONDITION_TYPES.conflictFree,
            status: 'False',
            reason: 'SameTimeDifferentValues',
            message: `sources disagree at the same occurred_at on ${disputed.slice(0, 20).join(', ')}${disputed.length > 20 ? ', ...' : ''}; the larger (source_family, source_event_id) is kept`,
          },
    ],
    now,
  );
}

/** The conditions shown for a committed revision whose recording has not finished. */
export function pendingConditions(
  conditions: readonly ExternalCondition[],
  revision: number,
  since: string,
): ExternalCondition[] {
  return conditions.map((condition) =>
    condition.type === CONDITION_TYPES.reconciled
      ? {
          ...condition,
          status: 'False',
          reason: 'RecordingPending',
          message: `revision ${revision} is committed; its world history event and projection are pending`,
          last_transition_time: since,
        }
      : condition,
  );
}
