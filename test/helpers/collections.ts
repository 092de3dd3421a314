import type { Db } from 'mongodb';
import type { ServiceEvent } from '../../src/store/service-events.repo';
import type { WorldHistoryEvent } from '../../src/store/world-history.repo';
import type { WorldObject } from '../../src/store/world-objects.repo';

/**
 * Collections a test reads or tampers with directly (repositories do not hand theirs out):
 * test code may look at the database itself.
 */
export const storedIn = (db: Db) => ({
  worldHistory: db.collection<WorldHistoryEvent>('world_history'),
  worldObjects: db.collection<WorldObject>('world_objects'),
  serviceEvents: db.collection<ServiceEvent>('service_events'),
});
