import { ApiError } from '../../api/errors';

/**
 * Keyset cursors of the lists sorted by `_id` ascending (objects, relationships). Ids are
 * unique and never change, so "strictly after the last id seen" neither repeats nor skips an
 * item that existed when paging began, whatever is inserted meanwhile.
 */
export const encodeIdCursor = (lastId: string): string =>
  Buffer.from(JSON.stringify([lastId]), 'utf8').toString('base64url');

/** The id a cursor continues after; 422 when it is not a cursor of this list. */
export function decodeIdCursor(cursor: string, prefix: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(parsed) && parsed.length === 1) {
      const [id] = parsed as unknown[];
      if (typeof id === 'string' && new RegExp(`^${prefix}_[0-9A-Za-z]{10,40}$`).test(id)) {
        return id;
      }
    }
  } catch {
    // fall through to the error below
  }
  throw new ApiError('validation_error', 'cursor is not valid', {
    detail: [{ loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'value_error' }],
  });
}

/** Cuts a page fetched with `limit + 1` rows and computes `next_cursor`. */
export function idPage<T extends { _id: string }>(rows: T[], limit: number) {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items,
    next_cursor: rows.length > limit && last ? encodeIdCursor(last._id) : null,
  };
}
