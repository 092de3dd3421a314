import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { BenchContext, BenchReport } from './lib/report';
import { scaleProcesses, TOPOLOGIES, type TopologyResult } from './scale-processes';
import { ROUTES, scaleReads, type ScaleReads } from './scale-reads';

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
  // A run of one part keeps the other part's figures from the last run that had them, so
  // `bench/results/scale.md` always holds both (each says when it ran).
  const previous = previousReport(ctx);
  const now = new Date().toISOString();
  const ranReads = PARTS.includes('reads');
  const reads = ranReads ? await scaleReads(ctx, MAX_SCALE) : previous?.reads;
  const readsRanAt = ranReads ? now : (previous?.readsRanAt ?? now);
  const topologies: Record<string, TopologyResult> = {};
  if (PARTS.includes('processes')) {
    for (const topology of TOPOLOGIES) {
      const name = `${topology.apis} api, ${topology.workers} worker`;
      topologies[name] = await scaleProcesses(ctx, topology);
      console.log(`  ${name}: ${JSON.stringify(topologies[name])}`);
    }
  } else if (previous) {
    Object.assign(topologies, previous.topologies);
  }
  const processesRanAt = PARTS.includes('processes') ? now : (previous?.processesRanAt ?? now);
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
    description: `Read cost as stored data grows (${reads ? `${reads.scales.join('×, ')}×, run ${readsRanAt}` : 'not run'}; sequential requests on one api, CPU ms per request of the api and FerretDB), then throughput as worker and api processes grow (${cpus().length} CPUs, run ${processesRanAt}) against the same embedded Temporal and FerretDB`,
    results: (reads?.results ?? {}) as Record<string, Record<string, number>>,
    ratios: { ...(reads?.growth ?? {}), ...speedups },
    figures: {
      ...(reads ? { ...reads.figures, readsRanAt } : {}),
      ...(Object.keys(topologies).length > 0 ? { processesRanAt } : {}),
    },
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

/** The parts of the last written `scale.json`, each with when it ran; undefined: none. */
function previousReport(ctx: BenchContext) {
  const file = join(ctx.distDir, '..', 'bench', 'results', 'scale.json');
  if (!existsSync(file)) return undefined;
  const last = JSON.parse(readFileSync(file, 'utf8')) as BenchReport & {
    meta?: { date?: string };
  };
  const ranAt = (key: string) => String(last.figures?.[key] ?? last.meta?.date ?? 'unknown');
  const isSpeedup = (key: string) =>
    key.startsWith('actions/s') || key.startsWith('cell-updates/s');
  const { readsRanAt: _r, processesRanAt: _p, ...readFigures } = last.figures ?? {};
  // Rows are `<read> @<scale>×`.
  const scaleOf = (row: string) => Number.parseInt(row.slice(row.lastIndexOf(' @') + 2), 10);
  const scales = [...new Set(Object.keys(last.results).map(scaleOf))].filter(Boolean);
  const reads: ScaleReads | undefined =
    Object.keys(last.results).length > 0
      ? {
          scales,
          results: last.results,
          growth: Object.fromEntries(
            Object.entries(last.ratios).filter(([key]) => !isSpeedup(key)),
          ),
          figures: readFigures,
        }
      : undefined;
  return {
    reads,
    readsRanAt: ranAt('readsRanAt'),
    topologies: (last.sections?.[0]?.results ?? {}) as Record<string, TopologyResult>,
    processesRanAt: ranAt('processesRanAt'),
  };
}
