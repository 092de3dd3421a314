import type { Collection, Filter } from 'mongodb';
import { idCursor, timeCursor, type TimePosition } from '../lib/cursor';

/** A position in a list sorted newest first by (`at`, `_id`). */
export type PagePosition = TimePosition;

/** The cursor of an (`at`, `_id`) list: `<at>~<id>`. */
export const encodePageCursor = (position: PagePosition): string => timeCursor.encode(position);

/** The position an (`at`, `_id`) cursor holds; 422 unless it matches `timeCursor`. */
export const decodePageCursor = (cursor: string): PagePosition => timeCursor.decode(cursor);

/** Mongo filter for items strictly after `position` in (at desc, _id desc) order. */
export function afterPosition(position: PagePosition | undefined): Record<string, unknown> {
  if (!position) return {};
  return {
    $or: [{ at: { $lt: position.at } }, { at: position.at, _id: { $lt: position.id } }],
  };
}

/** Cuts a page fetched with `limit + 1` items and computes `next_cursor`. */
export function toPage<T extends { _id: string; at: string }>(rows: T[], limit: number) {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items,
    next_cursor:
      rows.length > limit && last ? encodePageCursor({ at: last.at, id: last._id }) : null,
  };
}

/** The cursor of a list sorted by `_id`: the last id itself (`idCursor`). */
export const encodeIdCursor = (lastId: string): string =>
  idCursor(lastId.slice(0, lastId.indexOf('_'))).encode(lastId);

/** The id a cursor continues after; 422 when it is not an id of `prefix`. */
export const decodeIdCursor = (cursor: string, prefix: string): string =>
  idCursor(prefix).decode(cursor);

/** Cuts a page fetched with `limit + 1` rows and computes an id `next_cursor`. */
export function idPage<T extends { _id: string }>(rows: T[], limit: number) {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: rows.length > limit && last ? encodeIdCursor(last._id) : null };
}

/**
 * One page of a list keyed by `_id`: decodes the cursor (ids of `prefix` only), reads
 * `limit + 1` rows through `read`, and maps the page's rows to their views.
 */
export async function pageById<T extends { _id: string }, V>(
  query: { limit?: number; cursor?: string },
  prefix: string,
  read: (limit: number, cursorId: string | undefined) => Promise<T[]>,
  view: (row: T) => V,
): Promise<{ items: V[]; next_cursor: string | null }> {
  const limit = query.limit ?? 50;
  const cursorId = query.cursor ? decodeIdCursor(query.cursor, prefix) : undefined;
  const page = idPage(await read(limit, cursorId), limit);
  return { items: page.items.map(view), next_cursor: page.next_cursor };
}

/**
 * Rows matching `filter` newest first by ULID `_id`, strictly before `beforeId`; `limit + 1`
 * rows, so `idPage` can tell whether more follow.
 */
export function newestByIdPage<T extends { _id: string }>(
  col: Collection<T>,
  filter: Filter<T>,
  limit: number,
  beforeId?: string,
): Promise<T[]> {
  const query = (beforeId ? { ...filter, _id: { $lt: beforeId } } : filter) as Filter<T>;
  return col
    .find(query)
    .sort({ _id: -1 })
    .limit(limit + 1)
    .toArray() as Promise<T[]>;
}

/**
 * A page of the rows matching every clause, newest first by (`at`, `_id`), strictly after
 * `after`, with `since` (inclusive) and `until` (exclusive) bounds on `at`.
 */
export async function newestByTimePage<T extends { _id: string; at: string }>(
  col: Collection<T>,
  clauses: Filter<T>[],
  range: { since?: string; until?: string },
  limit: number,
  after?: PagePosition,
) {
  const all: Record<string, unknown>[] = [...(clauses as Record<string, unknown>[])];
  if (range.since) all.push({ at: { $gte: range.since } });
  if (range.until) all.push({ at: { $lt: range.until } });
  if (after) all.push(afterPosition(after));
  const rows = (await col
    .find((all.length > 0 ? { $and: all } : {}) as Filter<T>)
    .sort({ at: -1, _id: -1 })
    .limit(limit + 1)
    .toArray()) as T[];
  return toPage(rows, limit);
}
