import { createUnlimitedKey, mongoCommands } from './lib/api';
import { cpuColumns, cpuMsPerUnit, serverPid, type CpuPerUnit } from './lib/cpu';
import { meanOf, runLoad, type LoadResult } from './lib/load';
import { startApiAndBare } from './lib/processes';
import { naivePageMs, seedActions } from './lib/seed-actions';
import type { BenchContext, BenchReport } from './lib/report';
import { benchPort } from './lib/ports';

const OURS_PORT = benchPort(18480);
const BARE_PORT = benchPort(18481);

export interface GetVsBareOptions {
  suite: string;
  description: string;
  /** Our authenticated route, measured with full middleware. */
  path: string;
  /** The bare route it is compared with (default: the runtime document). */
  barePath?: string;
  /** Writes what both read before the load (the api is up, so its indexes exist). */
  seed?: (mongoUri: string) => Promise<void>;
  /** Other figures measured in the same run, after the load. */
  figures?: (mongoUri: string) => Promise<Record<string, number>>;
  minThroughputRatio: number;
  maxP99Ratio?: number;
  /** Auth and limits must add no database command per request (only the route's own). */
  maxDbCommandsPerRequest?: number;
}

/**
 * Foundation: our authenticated `GET /v1/runtime/status` (auth, family guard, rate limit,
 * validation, envelope, request log and ledger) against a bare Koa route that reads the
 * same MongoDB document. Targets: ≥ 0.85× the bare throughput (issue 17; issue 10 asked
 * 0.7×), p99 ≤ 2× the bare p99, and no database round trip per request for auth and limits
 * in the steady state.
 */
export const foundationBench = (ctx: BenchContext): Promise<BenchReport> =>
  getVsBare(ctx, {
    suite: 'foundation',
    description:
      'GET /v1/runtime/status (authenticated, full middleware) vs bare Koa reading the same document',
    path: '/v1/runtime/status',
    minThroughputRatio: 0.85,
    maxP99Ratio: 2,
    maxDbCommandsPerRequest: 1.05,
  });

/** World state (issue #4): `GET /v1/worlds/state` against the same bare baseline; ≥ 0.6×. */
export const worldStateBench = (ctx: BenchContext): Promise<BenchReport> =>
  getVsBare(ctx, {
    suite: 'world-state',
    description:
      'GET /v1/worlds/state (demo world, first page + history head) vs the bare Koa baseline',
    path: '/v1/worlds/state',
    minThroughputRatio: 0.6,
  });

/**
 * The approvals inbox (issue 11): `GET /v1/external-actions?status=awaiting_approval` with
 * 10,000 actions stored, against a bare Koa route reading the same page of the same
 * collection; ≥ 0.6×.
 */
export const inboxBench = (ctx: BenchContext): Promise<BenchReport> =>
  getVsBare(ctx, {
    suite: 'inbox',
    description:
      'GET /v1/external-actions?status=awaiting_approval (10,000 actions stored) vs bare Koa reading the same page',
    path: '/v1/external-actions?status=awaiting_approval',
    barePath: '/actions?status=awaiting_approval',
    minThroughputRatio: 0.6,
    seed: (mongoUri) => seedActions(mongoUri, 10_000),
    // What the inbox collection saves on FerretDB: the same page read from every action.
    figures: async (mongoUri) => ({ pageFromAllActionsMs: await naivePageMs(mongoUri) }),
  });

/** One authenticated GET of ours against the bare Koa route, interleaved rounds. */
async function getVsBare(ctx: BenchContext, options: GetVsBareOptions): Promise<BenchReport> {
  const servers = await startApiAndBare({
    ...ctx,
    suite: options.suite,
    oursPort: OURS_PORT,
    barePort: BARE_PORT,
  });
  const { ours, bare, adminKey } = servers;
  try {
    const apiKey = await createUnlimitedKey(servers.oursUrl, adminKey);
    const oursTarget = {
      url: `http://127.0.0.1:${OURS_PORT}${options.path}`,
      headers: { 'X-API-Key': apiKey },
    };
    const bareTarget = { url: `${servers.bareUrl}${options.barePath ?? '/runtime/status'}` };
    await options.seed?.(servers.mongoUri);
    const load = { connections: ctx.connections, durationSeconds: ctx.durationSeconds };

    // Warm both (JIT, pools, key cache, limiter windows), then interleave measured rounds.
    await runLoad({ ...oursTarget, ...load, durationSeconds: ctx.warmupSeconds });
    await runLoad({ ...bareTarget, ...load, durationSeconds: ctx.warmupSeconds });
    const oursRounds: LoadResult[] = [];
    const bareRounds: LoadResult[] = [];
    // Where the CPU goes, µs per request of each process (autocannon runs in this one).
    const ferretdb = serverPid(ctx.serversDataDir, 'ferretdb');
    const cpu = { ours: [] as CpuPerUnit[], bare: [] as CpuPerUnit[] };
    const measured = async (
      target: typeof bareTarget,
      processes: Record<string, number | undefined>,
      into: CpuPerUnit[],
    ): Promise<LoadResult> => {
      let result: LoadResult | undefined;
      const perThousand = () => (result?.total ?? 0) / 1000;
      into.push(
        await cpuMsPerUnit(processes, perThousand, async () => {
          result = await runLoad({ ...target, ...load });
        }),
      );
      return result!;
    };
    let dbCommandsPerRequest = 0;
    for (let round = 0; round < ctx.rounds; round += 1) {
      const bareProcesses = { server: bare.child.pid, ferretdb, client: process.pid };
      bareRounds.push(await measured(bareTarget, bareProcesses, cpu.bare));
      const before = await mongoCommands(servers.oursUrl, adminKey);
      const oursProcesses = { server: ours.child.pid, ferretdb, client: process.pid };
      const result = await measured(oursTarget, oursProcesses, cpu.ours);
      const after = await mongoCommands(servers.oursUrl, adminKey);
      dbCommandsPerRequest += (after - before) / result.total / ctx.rounds;
      oursRounds.push(result);
    }
    const oursMean = meanOf(oursRounds);
    const bareMean = meanOf(bareRounds);
    const throughputRatio = round2(oursMean.requestsPerSecond / bareMean.requestsPerSecond);
    const p99Ratio = round2(oursMean.p99Ms / bareMean.p99Ms);
    const targets = [
      {
        name: `throughput ≥ ${options.minThroughputRatio}× bare`,
        met: throughputRatio >= options.minThroughputRatio,
      },
      {
        name: 'no errors or non-2xx',
        met: oursMean.errors + oursMean.non2xx + bareMean.errors + bareMean.non2xx === 0,
      },
    ];
    if (options.maxP99Ratio !== undefined) {
      targets.push({
        name: `p99 ≤ ${options.maxP99Ratio}× bare`,
        met: p99Ratio <= options.maxP99Ratio,
      });
    }
    if (options.maxDbCommandsPerRequest !== undefined) {
      // The route's own reads; auth and limits add only amortised background writes.
      targets.push({
        name: 'auth + rate limit: no database round trip per request',
        met: dbCommandsPerRequest <= options.maxDbCommandsPerRequest,
      });
    }
    return {
      suite: options.suite,
      description: `${options.description}; cpuUs_<process>: CPU µs per request (server: ours or the bare route)`,
      results: {
        ours: {
          ...oursMean,
          peakRssMiB: ours.peakRssMiB(),
          dbCommandsPerRequest: round2(dbCommandsPerRequest),
          ...cpuColumns(cpu.ours, 'cpuUs_'),
        },
        bare: {
          ...bareMean,
          peakRssMiB: bare.peakRssMiB(),
          dbCommandsPerRequest: 1,
          ...cpuColumns(cpu.bare, 'cpuUs_'),
        },
      },
      ratios: { throughput: throughputRatio, p99: p99Ratio },
      ...(options.figures ? { figures: await options.figures(servers.mongoUri) } : {}),
      targets,
    };
  } finally {
    await servers.stop();
  }
}

const round2 = (n: number): number => Math.round(n * 100) / 100;
