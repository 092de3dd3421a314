import type { WorldHistoryEvent } from '../../store/world-history.repo';
import type { WorldObject } from '../../store/world-objects.repo';
import type { WorldRelationship } from '../../store/world-relationships.repo';
import type { WorldTask } from '../../store/world-tasks.repo';
import { withIdAs } from '../../lib/records';

/** A world object as clients see it; `external_state` is null until an event applied. */
export function objectView(object: WorldObject) {
  const { _id, last_action_id: _lastAction, external_state, ...rest } = object;
  const hasExternal = external_state && Object.keys(external_state).length > 0;
  return { object_id: _id, ...rest, external_state: hasExternal ? external_state : null };
}

/** A relationship as clients see it. */
export const toRelationshipView = (relationship: WorldRelationship) =>
  withIdAs(relationship, 'relationship_id');

/** A history event as clients see it. */
export const toHistoryEventView = (event: WorldHistoryEvent) => withIdAs(event, 'event_id');

/** A task as clients see it. */
export const toTaskView = (task: WorldTask) => withIdAs(task, 'task_id');
