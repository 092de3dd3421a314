import { ApiError } from '../api/errors';

/** A position in a list sorted newest first by (`at`, `_id`). */
export interface PagePosition {
  at: string;
  id: string;
}

/** Opaque cursor: base64url of the last item's sort key. */
export const encodeCursor = (position: PagePosition): string =>
  Buffer.from(JSON.stringify([position.at, position.id]), 'utf8').toString('base64url');

export function decodeCursor(cursor: string): PagePosition {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof at === 'string' && typeof id === 'string') return { at, id };
  } catch {
    // fall through to the error below
  }
  throw new ApiError('validation_error', 'cursor is not valid', {
    detail: [{ loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'value_error' }],
  });
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
