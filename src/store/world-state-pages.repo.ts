import type { Db } from 'mongodb';
import type { WorldObject } from './world-objects.repo';

/** The shape of a stored page; a page stored in another shape is not read. */
const FORMAT = 1;

/** A world-state page as some process computed it, after reading world revision `revision`. */
export interface StoredStatePage {
  revision: number;
  rows: WorldObject[];
  objectCount: number;
  historyHead: string | null;
}

interface StatePageDoc extends StoredStatePage {
  _id: string;
  format: number;
  saved_at: string;
}

/**
 * The first pages of the world state as last computed, by query, so a process with a cold
 * cache brings a stored page forward (reads by `_id`) instead of computing it (on FerretDB a
 * decode of every object). Any stored page is right as of its revision whichever process
 * wrote it last, so a plain replace is enough; only first pages are kept (one per kind and
 * limit), which bounds the collection.
 */
export function createWorldStatePagesRepo(db: Db) {
  const pages = db.collection<StatePageDoc>('world_state_pages');
  return {
    async get(key: string): Promise<StoredStatePage | null> {
      const doc = await pages.findOne({ _id: key });
      if (!doc || doc.format !== FORMAT) return null;
      const { revision, rows, objectCount, historyHead } = doc;
      return { revision, rows, objectCount, historyHead };
    },
    async put(key: string, page: StoredStatePage): Promise<void> {
      const doc: StatePageDoc = {
        _id: key,
        format: FORMAT,
        saved_at: new Date().toISOString(),
        ...page,
      };
      await pages.replaceOne({ _id: key }, doc, { upsert: true });
    },
  };
}

export type WorldStatePagesRepo = ReturnType<typeof createWorldStatePagesRepo>;
