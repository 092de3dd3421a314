import { ApiError } from '../../api/errors';

/**
 * Keyset cursors of the event and external-state lists: the last id of the page. Event ids
 * are time-ordered ULIDs (the history pages newest first, strictly before the cursor) and
 * object ids never change, so paging neither repeats nor skips what existed when it began.
 */
export const encodeListCursor = (lastId: string): string =>
  Buffer.from(JSON.stringify([lastId]), 'utf8').toString('base64url');

/** The id a cursor continues from; 422 when it is not a cursor of a list of `prefix` ids. */
export function decodeListCursor(cursor: string, prefix: 'evt' | 'obj'): string {
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
