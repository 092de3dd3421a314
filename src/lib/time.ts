/** ISO 8601 UTC with `Z`, millisecond precision. */
export const isoNow = (now: Date = new Date()): string => now.toISOString();

/** Whether `text` is a time exactly as `isoNow` writes it (what cursors carry). */
export function isCanonicalIso(text: unknown): text is string {
  if (typeof text !== 'string') return false;
  const ms = Date.parse(text);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === text;
}

/** Milliseconds until the next 00:00 UTC. */
export function msUntilUtcMidnight(nowMs: number): number {
  const d = new Date(nowMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) - nowMs;
}

/** `YYYY-MM-DD` of a UTC day. */
export const utcDay = (nowMs: number): string => new Date(nowMs).toISOString().slice(0, 10);
