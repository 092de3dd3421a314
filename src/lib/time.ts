/** ISO 8601 UTC with `Z`, millisecond precision. */
export const isoNow = (now: Date = new Date()): string => now.toISOString();

/** Milliseconds until the next 00:00 UTC. */
export function msUntilUtcMidnight(nowMs: number): number {
  const d = new Date(nowMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) - nowMs;
}

/** `YYYY-MM-DD` of a UTC day. */
export const utcDay = (nowMs: number): string => new Date(nowMs).toISOString().slice(0, 10);
