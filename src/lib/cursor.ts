import { Invalid } from './errors';

/** One part of a cursor's sort key. */
export type CursorPart = string | number | null;

/**
 * The one cursor codec: an opaque cursor is base64url of the JSON array of the last item's
 * sort key. Lists differ only in which parts they keep and how they check them.
 */
export const encodeCursor = (parts: readonly CursorPart[]): string =>
  Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');

/**
 * The position a cursor holds, as `read` accepts it from the decoded parts; a cursor that
 * is not one of ours (not base64url JSON, or parts `read` refuses) is a 422 on `cursor`.
 */
export function decodeCursor<T>(cursor: string, read: (parts: unknown[]) => T | undefined): T {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parts = undefined;
  }
  const position = Array.isArray(parts) ? read(parts) : undefined;
  if (position === undefined) {
    throw new Invalid([{ loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'value_error' }]);
  }
  return position;
}
