import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { mintApiKey } from '../src/auth/api-key';
import { createUnlimitedKey, mongoCommands } from './lib/api';
import { meanOf, runLoad, type LoadResult } from './lib/load';
import { startNodeServer, type ServerProcess } from './lib/processes';
import type { BenchContext, BenchReport } from './lib/report';

const OURS_PORT = 18480;
const BARE_PORT = 18481;

export interface GetVsBareOptions {
  suite: string;
  description: string;
  /** Our authenticated route, measured with full middleware. */
  path: string;
  minThroughputRatio: number;
  maxP99Ratio?: number;
  /** Auth and limits must add no database command per request (only the route's own). */
  maxDbCommandsPerRequest?: number;
}

/**
 * Foundation: our authenticated `GET /v1/runtime/status` (auth, family guard, rate limit,
 * validation, envelope, request log and ledger) against a bare Koa route that reads the
 * same MongoDB document. Targets: ≥ 0.7× the bare throughput, p99 ≤ 2× the bare p99, and
 * no database round trip per request for auth and limits in the steady state.
 */
export const foundationBench = (ctx: BenchContext): Promise<BenchReport> =>
  getVsBare(ctx, {
    suite: 'foundation',
    description:
      'GET /v1/runtime/status (authenticated, full middleware) vs bare Koa reading the same document',
    path: '/v1/runtime/status',
    minThroughputRatio: 0.7,
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

/** One authenticated GET of ours against the bare Koa route, interleaved rounds. */
async function getVsBare(ctx: BenchContext, options: GetVsBareOptions): Promise<BenchReport> {
  const dbName = `bench_${options.suite.replace(/-/g, '_')}_${randomBytes(3).toString('hex')}`;
  const mongoUri = `${ctx.mongoBaseUri}${dbName}`;
  const adminKey = mintApiKey(randomBytes(6).toString('hex'));
  const servers: ServerProcess[] = [];
  try {
    const ours = await startNodeServer(
      join(ctx.distDir, 'src', 'main.js'),
      {
        PORT: String(OURS_PORT),
        MONGODB_URI: mongoUri,
        TEMPORAL_ADDRESS: ctx.temporalAddress,
        KEY_PEPPER: randomBytes(32).toString('hex'),
        ADMIN_API_KEY: adminKey,
        LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'info',
      },
      join(ctx.logDir, `${options.suite}-api.log`),
      `http://127.0.0.1:${OURS_PORT}/healthz`,
    );
    servers.push(ours);
    const bare = await startNodeServer(
      join(ctx.distDir, 'bench', 'baseline', 'bare-koa.js'),
      { PORT: String(BARE_PORT), MONGODB_URI: mongoUri },
      join(ctx.logDir, `${options.suite}-bare.log`),
      `http://127.0.0.1:${BARE_PORT}/healthz`,
    );
    servers.push(bare);

    const apiKey = await createUnlimitedKey(`http://127.0.0.1:${OURS_PORT}`, adminKey);
    const oursTarget = {
      url: `http://127.0.0.1:${OURS_PORT}${options.path}`,
      headers: { 'X-API-Key': apiKey },
    };
    const bareTarget = { url: `http://127.0.0.1:${BARE_PORT}/runtime/status` };
    const load = { connections: ctx.connections, durationSeconds: ctx.durationSeconds };

    // Warm both (JIT, pools, key cache, limiter windows), then interleave measured rounds.
    await runLoad({ ...oursTarget, ...load, durationSeconds: ctx.warmupSeconds });
    await runLoad({ ...bareTarget, ...load, durationSeconds: ctx.warmupSeconds });
    const oursRounds: LoadResult[] = [];
    const bareRounds: LoadResult[] = [];
    let dbCommandsPerRequest = 0;
    for (let round = 0; round < ctx.rounds; round += 1) {
      bareRounds.push(await runLoad({ ...bareTarget, ...load }));
      const before = await mongoCommands(`http://127.0.0.1:${OURS_PORT}`, adminKey);
      const result = await runLoad({ ...oursTarget, ...load });
      const after = await mongoCommands(`http://127.0.0.1:${OURS_PORT}`, adminKey);
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
      description: options.description,
      results: {
        ours: {
          ...oursMean,
          peakRssMiB: ours.peakRssMiB(),
          dbCommandsPerRequest: round2(dbCommandsPerRequest),
        },
        bare: { ...bareMean, peakRssMiB: bare.peakRssMiB(), dbCommandsPerRequest: 1 },
      },
      ratios: { throughput: throughputRatio, p99: p99Ratio },
      targets,
    };
  } finally {
    for (const server of servers) await server.stop();
  }
}

const round2 = (n: number): number => Math.round(n * 100) / 100;
