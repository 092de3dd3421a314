/** ISO 8601 UTC with `Z`, millisecond precision. */
export const isoNow = (now: Date = new Date()): string => now.toISOString();

/** The second `isoOfMs` last formatted, and its text up to the milliseconds. */
let isoSecond = Number.NaN;
let isoSecondPrefix = '';

/**
 * `new Date(ms).toISOString()` for a whole-millisecond time, at a tenth of the cost when
 * called many times a second (the request log and ledger stamp every request): the text up
 * to the seconds is formatted once a second.
 */
export function isoOfMs(ms: number): string {
  // Four-digit years only (the format changes outside them); anything odd, the slow way.
  if (!Number.isInteger(ms) || ms < 0 || ms >= 253_402_300_800_000) {
    return new Date(ms).toISOString();
  }
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    isoSecondPrefix = new Date(second * 1000).toISOString().slice(0, 20);
    isoSecond = second;
  }
  const milli = ms - second * 1000;
  return `${isoSecondPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

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
