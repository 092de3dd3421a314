import { cpuMsPerUnit } from './cpu';
import { percentile, timed } from './stats';

/** One read route measured at one data size. */
export interface ReadSample {
  p50Ms: number;
  p99Ms: number;
  /** Sequential requests per second (one at a time: the cost of one read, not concurrency). */
  requestsPerSecond: number;
  samples: number;
  /** CPU ms per request of each process named (api, ferretdb), and their total. */
  [cpu: `cpuMs_${string}`]: number;
}

export interface SampleOptions {
  /** Most requests. */
  samples: number;
  /** Stop early once this much time went by (slow reads on large data), after 3 at least. */
  budgetMs: number;
  /** Runs before each request, outside the timing (e.g. a write that makes caches stale). */
  before?: () => Promise<void>;
}

/**
 * Sequential GETs of `url` (after one warm-up request, not counted), timed one by one, with
 * the CPU each named process spent per request. Throws on a non-2xx answer.
 */
export async function sampleReads(
  url: string,
  headers: Record<string, string>,
  processes: Record<string, number | undefined>,
  options: SampleOptions,
): Promise<ReadSample> {
  const get = async () => {
    const res = await fetch(url, { headers });
    if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  await options.before?.();
  await get();
  const ms: number[] = [];
  let wallMs = 0;
  const cpu = await cpuMsPerUnit(
    processes,
    () => ms.length,
    async () => {
      const started = Date.now();
      while (ms.length < options.samples) {
        if (ms.length >= 3 && Date.now() - started > options.budgetMs) break;
        await options.before?.();
        const [, took] = await timed(get);
        ms.push(took);
        wallMs += took;
      }
    },
  );
  return {
    p50Ms: percentile(ms, 50),
    p99Ms: percentile(ms, 99),
    requestsPerSecond: Math.round((ms.length / wallMs) * 1000 * 10) / 10,
    samples: ms.length,
    ...Object.fromEntries(Object.entries(cpu).map(([name, v]) => [`cpuMs_${name}`, v])),
  };
}
