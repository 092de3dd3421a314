/**
 * The schema builders (src/lib/schema.ts) and shared views, as the route tables import them.
 */
export * from '../../lib/schema';
export {
  conditionView,
  externalStateView,
  reconciliationView,
  RECONCILIATION_OUTCOMES,
} from '../../domain/events/schemas';

/** Query of a route that takes none. */
export type NoQuery = Record<string, never>;

/** Query of a paged list: `limit` (1..500, default 50) and an opaque `cursor`. */
export type PagedQuery = { limit?: number; cursor?: string };

/** Query of a route keyed by an optional world object. */
export type ObjectFilterQuery = { object_id?: string };

/** Path parameters of a route that has none. */
export type NoParams = Record<string, never>;
