/** Rollup periods: UTC hours (`YYYY-MM-DDTHH`) and UTC days (`YYYY-MM-DD`). */
export type Granularity = 'hour' | 'day';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** The key of the period holding instant `ms`. */
export const periodKey = (ms: number, granularity: Granularity): string =>
  new Date(ms).toISOString().slice(0, granularity === 'hour' ? 13 : 10);

/** ISO start of the period with this key. */
export const periodStart = (key: string): string =>
  key.length === 13 ? `${key}:00:00.000Z` : `${key}T00:00:00.000Z`;

/** Start (epoch ms) of the period holding `ms`. */
export const floorPeriod = (ms: number, granularity: Granularity): number =>
  Date.parse(periodStart(periodKey(ms, granularity)));

export const periodMs = (granularity: Granularity): number =>
  granularity === 'hour' ? HOUR_MS : DAY_MS;

/**
 * Bounds on period keys for periods overlapping [since, until): a period is in when it
 * starts before `until` and ends after `since` (periods are whole; a partial one counts).
 */
export function periodRange(
  granularity: Granularity,
  since: string | undefined,
  until: string | undefined,
): { $gte?: string; $lte?: string } {
  return {
    ...(since ? { $gte: periodKey(Date.parse(since), granularity) } : {}),
    ...(until ? { $lte: periodKey(Date.parse(until) - 1, granularity) } : {}),
  };
}

/** An ISO 8601 instant as stored (UTC, milliseconds, `Z`), so strings compare in time order. */
export const normalizeInstant = (value: string): string => new Date(value).toISOString();

/** `since` / `until` of a query, normalized. */
export function normalizeRange<T extends { since?: string; until?: string }>(query: T): T {
  return {
    ...query,
    ...(query.since ? { since: normalizeInstant(query.since) } : {}),
    ...(query.until ? { until: normalizeInstant(query.until) } : {}),
  };
}
