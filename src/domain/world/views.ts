import type { WorldHistoryEvent } from '../../store/world-history.repo';
import type { WorldObject } from '../../store/world-objects.repo';
import type { WorldRelationship } from '../../store/world-relationships.repo';
import type { WorldTask } from '../../store/world-tasks.repo';

/** A world object as clients see it; `external_state` is null until an event applied. */
export function objectView(object: WorldObject) {
  const { _id, last_action_id: _lastAction, external_state, ...rest } = object;
  const hasExternal = external_state && Object.keys(external_state).length > 0;
  return { object_id: _id, ...rest, external_state: hasExternal ? external_state : null };
}

/** A relationship as clients see it. */
export function relationshipView(relationship: WorldRelationship) {
  const { _id, ...rest } = relationship;
  return { relationship_id: _id, ...rest };
}

/** A history event as clients see it. */
export function historyEventView(event: WorldHistoryEvent) {
  const { _id, ...rest } = event;
  return { event_id: _id, ...rest };
}

/** A task as clients see it. */
export function taskView(task: WorldTask) {
  const { _id, ...rest } = task;
  return { task_id: _id, ...rest };
}
