import { Client } from '@temporalio/client';
import { connectTemporal } from '../src/temporal/connect';
import {
  apiCommandCounts,
  budgetUnits,
  commandCountsAt,
  budgetWorld,
  seedIngestObjects,
  startBudgetStack,
  type Unit,
} from './lib/budget-units';
import { cpuMsPerUnit, serverPid } from './lib/cpu';
import { benchPort } from './lib/ports';
import type { BenchContext, BenchReport } from './lib/report';
import { seedActions } from './lib/seed-actions';
import { pause, percentile } from './lib/stats';

const API_PORT = benchPort(18493);
const WORKER_METRICS_PORT = benchPort(18494);
const ACTIONS = Number(process.env['BENCH_GROWTH_ACTIONS'] ?? 30);
const WARMUP = 3;
const STORED_ACTIONS = 10_000;
const INGEST_BATCHES = 20;
const GETS = 2_000;
const INBOX_PAGES = 500;
/** CPU per action may grow by this much as the store fills (the spread of the machine). */
const MAX_GROWTH = 1.25;
const QUIET_MS = 30_000;

/**
 * What an action costs as the store fills: the budget's action (propose → approve → execute
 * over HTTP, `notify`), one at a time, CPU per process and each process's MongoDB commands
 * per action, on a fresh database, then after each kind of data the budget's other units
 * leave behind (10,000 stored actions and 20 ingest batches of 500 events, then 2,000
 * authenticated GETs, then 500 inbox pages), and once more after a quiet half-minute. The
 * target compares the last stage with the first. Not in the default run.
 */
export async function growthBench(ctx: BenchContext): Promise<BenchReport> {
  const connection = await connectTemporal({ address: ctx.temporalAddress });
  const client = new Client({ connection });
  const world = budgetWorld(ctx);
  const stack = await startBudgetStack(ctx, world, {
    port: API_PORT,
    client,
    withBare: false,
    name: 'growth',
    extraEnv: { WORKER_METRICS_LISTEN: `127.0.0.1:${WORKER_METRICS_PORT}` },
  });
  const pids = {
    api: stack.api.child.pid,
    worker: stack.worker.child.pid,
    ferretdb: serverPid(ctx.serversDataDir, 'ferretdb'),
    temporal: serverPid(ctx.serversDataDir, 'temporal'),
  };
  const units = budgetUnits(stack, world, client);
  const results: Record<string, Record<string, number>> = {};
  const measure = async (stage: string): Promise<void> => {
    for (let i = 0; i < WARMUP; i += 1) await units.action.run(-1 - i);
    const wallMs: number[] = [];
    const workerMetrics = `http://127.0.0.1:${WORKER_METRICS_PORT}/metrics`;
    const commandsBefore = await apiCommandCounts(stack.base, world.adminKey);
    const workerCommandsBefore = await commandCountsAt(workerMetrics);
    const cpu = await cpuMsPerUnit(
      pids,
      () => ACTIONS,
      async () => {
        for (let i = 0; i < ACTIONS; i += 1) {
          const started = performance.now();
          await units.action.run(i);
          wallMs.push(performance.now() - started);
        }
      },
    );
    // Each process's commands per action, background ones included.
    const perAction = (
      prefix: string,
      before: Record<string, number>,
      after: Record<string, number>,
    ) =>
      Object.fromEntries(
        Object.entries(after)
          .map(([name, n]): [string, number] => [
            `${prefix}_${name}`,
            Math.round(((n - (before[name] ?? 0)) / ACTIONS) * 100) / 100,
          ])
          .filter(([, n]) => n > 0),
      );
    const apiCommands = perAction(
      'apiCommands',
      commandsBefore,
      await apiCommandCounts(stack.base, world.adminKey),
    );
    const workerCommands = perAction(
      'workerCommands',
      workerCommandsBefore,
      await commandCountsAt(workerMetrics),
    );
    results[stage] = {
      ...Object.fromEntries(Object.entries(cpu).map(([name, ms]) => [`cpuMs_${name}`, ms])),
      ...apiCommands,
      ...workerCommands,
      p50Ms: percentile(wallMs, 50),
    };
    console.log(`growth: ${stage} ${JSON.stringify(results[stage])}`);
  };
  const times = async (unit: Unit, n: number) => {
    for (let i = 0; i < n; i += 1) await unit.run(i);
  };
  try {
    await measure('fresh database');
    await seedActions(world.mongoUri, STORED_ACTIONS);
    await seedIngestObjects(world);
    await times(units.ingest, INGEST_BATCHES);
    await measure(`after ${STORED_ACTIONS} actions and ${INGEST_BATCHES} ingest batches`);
    await times(units.status, GETS);
    await measure(`after ${GETS} GETs`);
    await times(units.inbox, INBOX_PAGES);
    await measure(`after ${INBOX_PAGES} inbox pages`);
    await pause(QUIET_MS);
    await measure(`${QUIET_MS / 1000} s later`);
  } finally {
    await stack.stop();
    await connection.close();
  }
  const stages = Object.values(results);
  const first = stages[0];
  const last = stages[stages.length - 1];
  const growth = (name: string) => Math.round((last[name] / first[name]) * 100) / 100;
  const peak = Math.max(...stages.map((stage) => stage['cpuMs_ferretdb']));
  const ratios = {
    ferretdbCpuGrowth: growth('cpuMs_ferretdb'),
    totalCpuGrowth: growth('cpuMs_total'),
    // The dearest stage, beside the last: a background read that grows with the store
    // shows at one stage before it shows at the end.
    ferretdbCpuPeakGrowth: Math.round((peak / first['cpuMs_ferretdb']) * 100) / 100,
  };
  return {
    suite: 'growth',
    description: `One action (propose → approve → execute over HTTP, notify), ${ACTIONS} one at a time after ${WARMUP} warm-up ones, at each stage of the store filling up; cpuMs_<process>: CPU ms per action`,
    results,
    ratios,
    targets: [
      {
        name: `FerretDB CPU per action at the end ≤ ${MAX_GROWTH}× fresh`,
        met: ratios.ferretdbCpuGrowth <= MAX_GROWTH,
      },
      {
        name: `total CPU per action at the end ≤ ${MAX_GROWTH}× fresh`,
        met: ratios.totalCpuGrowth <= MAX_GROWTH,
      },
    ],
  };
}
