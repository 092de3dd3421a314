import type { Collection, Db, Document, Filter } from 'mongodb';

/**
 * How a store reads a list of documents by `_id` (a feed page's entries): `each`, one
 * `findOne` per id sent at once, or `together`, one `find` with `$in`. FerretDB v1 serves
 * `{_id: x}` from its index but decodes the whole table for `$in` (docs/ferretdb.md), so it
 * is read `each`; MongoDB serves `$in` from the `_id` index, so there a page's entries are
 * one round trip.
 */
export type ReadsById = 'each' | 'together';

/** Documents of `ids`, in their order; null where none is stored. */
export type ByIdReader = <T extends Document & { _id: string }>(
  col: Collection<T>,
  ids: readonly string[],
  projection?: Document,
) => Promise<(T | null)[]>;

/** How the server behind `db` is read: FerretDB answers `buildInfo` with `ferretdbVersion`. */
export async function readsByIdOf(db: Db): Promise<ReadsById> {
  const info = await db.command({ buildInfo: 1 });
  return 'ferretdbVersion' in info ? 'each' : 'together';
}

/**
 * Reads by `_id` the way `reads` says; when absent, the server's way, asked once by this
 * reader (one command per repository and process), the first time it reads. A failed
 * question is asked again by the next read, not remembered.
 */
export function byIdReader(db: Db, reads?: ReadsById): ByIdReader {
  let known: Promise<ReadsById> | undefined = reads && Promise.resolve(reads);
  const way = (): Promise<ReadsById> => {
    known ??= readsByIdOf(db).catch((error: unknown) => {
      known = undefined;
      throw error;
    });
    return known;
  };
  return async <T extends Document & { _id: string }>(
    col: Collection<T>,
    ids: readonly string[],
    projection?: Document,
  ): Promise<(T | null)[]> => {
    if (ids.length === 0) return [];
    if ((await way()) === 'each') {
      return (await Promise.all(
        ids.map((_id) => col.findOne({ _id } as Filter<T>, { projection })),
      )) as (T | null)[];
    }
    const found = new Map<string, T>();
    // One batch: a `find` returns 101 documents before a `getMore` unless told otherwise.
    const batch = { limit: ids.length, batchSize: ids.length, projection };
    const rows = (await col.find({ _id: { $in: [...ids] } } as Filter<T>, batch).toArray()) as T[];
    for (const row of rows) found.set(row._id, row);
    return ids.map((id) => found.get(id) ?? null);
  };
}
