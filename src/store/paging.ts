import type { Collection, Filter } from 'mongodb';
import { ApiError } from '../api/errors';

/** A position in a list sorted newest first by (`at`, `_id`). */
export interface PagePosition {
  at: string;
  id: string;
}

/** Opaque cursor: base64url of the last item's sort key. */
export const encodeCursor = (position: PagePosition): string =>
  Buffer.from(JSON.stringify([position.at, position.id]), 'utf8').toString('base64url');

const invalidCursor = (): ApiError =>
  new ApiError('validation_error', 'cursor is not valid', {
    detail: [{ loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'value_error' }],
  });

/** The JSON array inside a cursor, or undefined when it is not one of ours. */
function cursorParts(cursor: string): unknown[] | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function decodeCursor(cursor: string): PagePosition {
  const [at, id] = cursorParts(cursor) ?? [];
  if (typeof at === 'string' && typeof id === 'string') return { at, id };
  throw invalidCursor();
}

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
    next_cursor: rows.length > limit && last ? encodeCursor({ at: last.at, id: last._id }) : null,
  };
}

/**
 * Keyset cursors of lists sorted by `_id` (objects, relationships, events): the last id of
 * the page. Ids are unique, never change and (ULIDs) are time-ordered, so "strictly after
 * the last id seen" neither repeats nor skips what existed when paging began.
 */
export const encodeIdCursor = (lastId: string): string =>
  Buffer.from(JSON.stringify([lastId]), 'utf8').toString('base64url');

/** The id a cursor continues after; 422 when it is not a cursor of a list of `prefix` ids. */
export function decodeIdCursor(cursor: string, prefix: string): string {
  const parts = cursorParts(cursor);
  const id = parts?.length === 1 ? parts[0] : undefined;
  if (typeof id === 'string' && new RegExp(`^${prefix}_[0-9A-Za-z]{10,40}$`).test(id)) return id;
  throw invalidCursor();
}

/** Cuts a page fetched with `limit + 1` rows and computes an id `next_cursor`. */
export function idPage<T extends { _id: string }>(rows: T[], limit: number) {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: rows.length > limit && last ? encodeIdCursor(last._id) : null };
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
