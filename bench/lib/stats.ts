/** Percentile (nearest rank) of a list of numbers, rounded to 0.1. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[index] * 10) / 10;
}

/** Milliseconds an async step takes. */
export async function timed<T>(step: () => Promise<T>): Promise<[T, number]> {
  const started = process.hrtime.bigint();
  const value = await step();
  return [value, Number(process.hrtime.bigint() - started) / 1e6];
}

/** Runs `total` jobs with at most `inFlight` at once; resolves to the wall time in ms. */
export async function runConcurrently(
  total: number,
  inFlight: number,
  job: (i: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) await job(next++);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Resolves after `ms` milliseconds. */
export const pause = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));
