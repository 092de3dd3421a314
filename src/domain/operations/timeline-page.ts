import { decodePageCursor, type PagePosition } from '../../store/paging';
import { normalizeRange } from './periods';

/** A page of an operations log read newest first by (`at`, id). */
interface TimelinePage<R> {
  items: R[];
  next_cursor: string | null;
}

/**
 * One page of an operations log (audit, service events): the range normalized, the
 * (`at`, id) cursor checked and decoded, each row turned into its view.
 */
export async function timelinePage<F extends { since?: string; until?: string }, R, V>(
  query: F & { limit?: number; cursor?: string },
  list: (filter: F, limit: number, after?: PagePosition) => Promise<TimelinePage<R>>,
  view: (row: R) => V,
) {
  const { limit = 50, cursor, ...filter } = normalizeRange(query);
  const page = await list(
    filter as unknown as F,
    limit,
    cursor ? decodePageCursor(cursor) : undefined,
  );
  return { items: page.items.map(view), next_cursor: page.next_cursor };
}
