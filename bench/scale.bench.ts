import { cpus } from 'node:os';
import type { BenchContext, BenchReport } from './lib/report';
import { scaleProcesses, TOPOLOGIES, type TopologyResult } from './scale-processes';
import { ROUTES, scaleReads } from './scale-reads';

const READS = Object.keys(ROUTES).length;

/** Largest data multiple measured (1, 10 or 100); `BENCH_SCALE_MAX=10` for a quick run. */
const MAX_SCALE = Number(process.env['BENCH_SCALE_MAX'] ?? 100);
/** `BENCH_SCALE_PARTS=reads` or `processes` runs one half only. */
const PARTS = (process.env['BENCH_SCALE_PARTS'] ?? 'reads,processes').split(',');

/**
 * Scale (issue 17 items 5 and 6): how read cost grows with stored data (1×, 10×, 100×:
 * world objects 100 → 10,000, actions 1,000 → 100,000, events 10,000 → 1,000,000), and
 * how action and deployment throughput grow with worker and api processes on the same
 * embedded Temporal and FerretDB. Reported, not judged: the targets only check the runs
 * completed (growth ratios are in `ratios`, their reading in docs/performance.md).
 */
export async function scaleBench(ctx: BenchContext): Promise<BenchReport> {
  const reads = PARTS.includes('reads') ? await scaleReads(ctx, MAX_SCALE) : undefined;
  const topologies: Record<string, TopologyResult> = {};
  if (PARTS.includes('processes')) {
    for (const topology of TOPOLOGIES) {
      const name = `${topology.apis} api, ${topology.workers} worker`;
      topologies[name] = await scaleProcesses(ctx, topology);
      console.log(`  ${name}: ${JSON.stringify(topologies[name])}`);
    }
  }
  const single = topologies['1 api, 1 worker'];
  const speedups: Record<string, number> = {};
  if (single) {
    for (const [name, result] of Object.entries(topologies)) {
      speedups[`actions/s ${name} / 1+1`] = round2(
        result.actionsPerSecond / single.actionsPerSecond,
      );
      speedups[`cell-updates/s ${name} / 1+1`] = round2(
        result.cellUpdatesPerSecondM / single.cellUpdatesPerSecondM,
      );
    }
  }
  return {
    suite: 'scale',
    description: `Read cost as stored data grows (${reads ? reads.scales.join('×, ') + '×' : 'not run'}; sequential requests on one api, CPU ms per request of the api and FerretDB), then throughput as worker and api processes grow (${cpus().length} CPUs) against the same embedded Temporal and FerretDB`,
    results: (reads?.results ?? {}) as Record<string, Record<string, number>>,
    ratios: { ...(reads?.growth ?? {}), ...speedups },
    figures: reads?.figures ?? {},
    sections: [
      { title: 'Processes: actions/s and deployment cell-updates/s', results: topologies },
    ],
    targets: [
      {
        name: 'every read measured at every scale',
        met:
          !PARTS.includes('reads') ||
          (!!reads && Object.keys(reads.results).length === reads.scales.length * READS),
      },
      {
        name: 'every topology ran',
        met: !PARTS.includes('processes') || Object.keys(topologies).length === TOPOLOGIES.length,
      },
    ],
  };
}

const round2 = (n: number): number => Math.round(n * 100) / 100;
