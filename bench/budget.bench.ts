import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { connectTemporal } from '../src/temporal/connect';
import {
  historyBudget,
  meanBudget,
  type HistoryBudget,
  type HistoryJson,
} from './lib/budget-history';
import {
  budgetReport,
  type BudgetKind as Kind,
  type TracedRun,
  type UntracedRun,
} from './lib/budget-report';
import {
  apiCommandCounts,
  budgetUnits,
  budgetWorld,
  seedIngestObjects,
  startBudgetStack,
  type BudgetStack,
  type BudgetWorld,
  type Unit,
} from './lib/budget-units';
import { cpuMsPerUnit, serverPid } from './lib/cpu';
import { startOtlpCollector, type OtlpCollector } from './lib/otlp-collector';
import { benchPort } from './lib/ports';
import type { BenchContext, BenchReport } from './lib/report';
import { seedActions } from './lib/seed-actions';
import { pause, timed } from './lib/stats';

const API_PORT = benchPort(18492);
const INBOX_ACTIONS = 10_000;
const WARMUP = 5;
const IDLE_SECONDS = 10;
const count = (name: string, fallback: number) =>
  Number(process.env[`BENCH_BUDGET_${name}`] ?? fallback);
/** Units of each kind: in the traced pass (counts, spans) and the CPU pass (traces off). */
const TRACED: Record<Kind, number> = {
  action: count('TRACED_ACTIONS', 20),
  status: count('TRACED_GETS', 300),
  inbox: count('TRACED_PAGES', 100),
  ingest: count('TRACED_BATCHES', 10),
};
const UNTRACED: Record<Kind, number> = {
  action: count('ACTIONS', 50),
  status: count('GETS', 2000),
  inbox: count('PAGES', 500),
  ingest: count('BATCHES', 20),
};
/** The order of a pass: the action on a fresh database (as the actions suite), then the rest. */
const KINDS: Kind[] = ['action', 'status', 'inbox', 'ingest'];
/** The action once more, after the other units' data is stored: what that data costs it. */
const AFTER_DATA = 'action, after the other units’ data';

/**
 * The budget (issue 44): where the milliseconds and the CPU of one action (propose → approve
 * → execute over HTTP), one authenticated `GET /v1/runtime/status`, one ingest batch (the
 * events suite's 500 events) and one inbox page (10,000 actions stored, as the inbox suite
 * seeds them) go. Two passes, each on a fresh database, units one at a time after a few
 * warm-up units, the action first (on an empty store, as in the actions suite), then the
 * inbox suite's and the events suite's data is written and the other three run:
 *
 * - traces on (OTLP/JSON to a receiver in this process that parses every span): each MongoDB
 *   command (a span per command, by process, collection and command), each Temporal client
 *   call and activity; each step's share of the requests' critical paths; the api's commands
 *   outside any trace (its metrics' count minus the traced ones: background flushes);
 * - traces off (no `OTEL_*` variable): CPU ms per unit of every process, wall-clock p50, and
 *   the action's history (events by type, workflow tasks, activities, local activities,
 *   updates) beside a bare Temporal workflow's; the action once more after the other units'
 *   data, to show what that data costs it.
 */
export async function budgetBench(ctx: BenchContext): Promise<BenchReport> {
  const otel = Object.keys(process.env).filter((name) => name.startsWith('OTEL_'));
  const saved = Object.fromEntries(otel.map((name) => [name, process.env[name]]));
  for (const name of otel) delete process.env[name];
  const loadBefore = loadavg();
  const collector = await startOtlpCollector();
  const connection = await connectTemporal({ address: ctx.temporalAddress });
  const client = new Client({ connection });
  try {
    const traced = await tracedPass(ctx, client, collector);
    // Every span received, for a closer look (not committed: the log directory is .data/).
    writeFileSync(join(ctx.logDir, 'budget-spans.json'), JSON.stringify(collector.spans));
    const untraced = await untracedPass(ctx, client);
    const histories = {
      ours: await historiesOf(client, untraced.action),
      bare: await historiesOf(client, untraced.bare),
    };
    return budgetReport({
      traced,
      untraced,
      histories,
      collector,
      kinds: KINDS,
      load: [loadBefore[0], loadavg()[0]],
    });
  } finally {
    await connection.close();
    await collector.stop();
    for (const [name, value] of Object.entries(saved)) {
      if (value !== undefined) process.env[name] = value;
    }
  }
}

/** Runs a unit `n` times, one at a time, after the warm-up. */
async function runUnit(unit: Unit, n: number): Promise<{ results: unknown[]; wallMs: number[] }> {
  const results: unknown[] = [];
  const wallMs: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const [result, ms] = await timed(() => unit.run(i));
    results.push(result);
    wallMs.push(ms);
  }
  return { results, wallMs };
}

async function warm(unit: Unit): Promise<void> {
  for (let i = 0; i < WARMUP; i += 1) await unit.run(-1 - i);
}

/** The inbox suite's and the events suite's data. */
async function seed(world: BudgetWorld): Promise<void> {
  await seedActions(world.mongoUri, INBOX_ACTIONS);
  await seedIngestObjects(world);
}

async function tracedPass(
  ctx: BenchContext,
  client: Client,
  collector: OtlpCollector,
): Promise<Record<Kind | 'actionAfterData', TracedRun>> {
  const world = budgetWorld(ctx);
  const stack = await startBudgetStack(ctx, world, {
    port: API_PORT,
    client,
    withBare: false,
    name: 'budget-traced',
    extraEnv: {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    },
  });
  const runs: Partial<Record<Kind | 'actionAfterData', TracedRun>> = {};
  try {
    const units = budgetUnits(stack, world, client);
    const afterData = { ...units.action, name: AFTER_DATA };
    for (const kind of [...KINDS, 'actionAfterData'] as const) {
      if (kind === 'status') await seed(world);
      const unit = kind === 'actionAfterData' ? afterData : units[kind];
      const n = TRACED[kind === 'actionAfterData' ? 'action' : kind];
      await warm(unit);
      await pause(100);
      const before = await apiCommandCounts(stack.base, world.adminKey);
      // The metrics' own requests are traced too: the window leaves them out.
      const from = Date.now();
      const run = await runUnit(unit, n);
      const to = Date.now();
      const after = await apiCommandCounts(stack.base, world.adminKey);
      const apiCommands = Object.fromEntries(
        Object.keys(after).map((name) => [name, after[name] - (before[name] ?? 0)]),
      );
      runs[kind] = { unit, units: n, from, to, ...run, apiCommands };
      console.log(`budget: traced ${unit.name} ×${n}`);
    }
  } finally {
    // Stopping flushes each process's last spans to the collector.
    await stack.stop();
  }
  return runs as Record<Kind | 'actionAfterData', TracedRun>;
}

type UntracedKind = Kind | 'bare' | 'actionAfterData' | 'idleFresh' | 'idleAfterData';

async function untracedPass(
  ctx: BenchContext,
  client: Client,
): Promise<Record<UntracedKind, UntracedRun>> {
  const world = budgetWorld(ctx);
  const stack = await startBudgetStack(ctx, world, {
    port: API_PORT,
    client,
    withBare: true,
    name: 'budget',
    extraEnv: {},
  });
  const runs: Partial<Record<UntracedKind, UntracedRun>> = {};
  try {
    const units = budgetUnits(stack, world, client);
    const processes = processesOf(ctx, stack);
    type Step = [UntracedKind, Unit, number, Record<string, number | undefined>];
    const after = { ...units.action, name: AFTER_DATA };
    // A second of nothing: what the processes spend on their own (background work, the
    // servers' housekeeping), on the fresh database and after the other units' data.
    const idle = (name: string): Unit => ({ name, roots: /^$/, run: () => pause(1000) });
    // Ours and the bare action in alternating blocks, so the machine's drifts fall on both.
    const half = Math.ceil(UNTRACED.action / 2);
    const plan: Step[] = [
      ['idleFresh', idle('idle second, fresh database'), IDLE_SECONDS, processes.ours],
      ['action', units.action, half, processes.ours],
      ['bare', units.bareAction, half, processes.bare],
      ['action', units.action, half, processes.ours],
      ['bare', units.bareAction, half, processes.bare],
      ...(['status', 'inbox', 'ingest'] as const).map((kind): Step => [
        kind,
        units[kind],
        UNTRACED[kind],
        processes.ours,
      ]),
      [
        'idleAfterData',
        idle('idle second, after the other units’ data'),
        IDLE_SECONDS,
        processes.ours,
      ],
      ['actionAfterData', after, UNTRACED.action, processes.ours],
    ];
    for (const [kind, unit, n, pids] of plan) {
      if (kind === 'status') await seed(world);
      if (!runs[kind] && !kind.startsWith('idle')) await warm(unit);
      let run: Awaited<ReturnType<typeof runUnit>> = { results: [], wallMs: [] };
      const cpu = await cpuMsPerUnit(
        pids,
        () => n,
        async () => {
          run = await runUnit(unit, n);
        },
      );
      runs[kind] = merged(runs[kind], { unit, units: n, ...run, cpu });
      console.log(`budget: untraced ${unit.name} ×${n}`);
    }
  } finally {
    await stack.stop();
  }
  return runs as Record<UntracedKind, UntracedRun>;
}

/** Two blocks of one kind as one run: the CPU per unit is the blocks' mean, weighted. */
function merged(earlier: UntracedRun | undefined, block: UntracedRun): UntracedRun {
  if (!earlier) return block;
  const units = earlier.units + block.units;
  const cpu: Record<string, number> = {};
  for (const name of Object.keys(block.cpu)) {
    const ms = ((earlier.cpu[name] ?? 0) * earlier.units + block.cpu[name] * block.units) / units;
    cpu[name] = Math.round(ms * 10) / 10;
  }
  return {
    unit: earlier.unit,
    units,
    results: [...earlier.results, ...block.results],
    wallMs: [...earlier.wallMs, ...block.wallMs],
    cpu,
  };
}

/** The processes whose CPU a unit of ours, and a bare action, is charged with. */
function processesOf(ctx: BenchContext, stack: BudgetStack) {
  const servers = {
    ferretdb: serverPid(ctx.serversDataDir, 'ferretdb'),
    temporal: serverPid(ctx.serversDataDir, 'temporal'),
    client: process.pid,
  };
  return {
    ours: { api: stack.api.child.pid, worker: stack.worker.child.pid, ...servers },
    bare: { api: undefined, worker: stack.bareWorker?.child.pid, ...servers },
  };
}

/** The mean history budget of (up to 20 of) a run's workflow executions. */
async function historiesOf(
  client: Client,
  run: { unit: Unit; results: unknown[] },
): Promise<HistoryBudget> {
  const budgets: HistoryBudget[] = [];
  for (const result of run.results.slice(0, 20)) {
    const history = await client.workflow.getHandle(run.unit.workflowOf!(result)).fetchHistory();
    budgets.push(historyBudget(JSON.parse(historyToJSON(history)) as HistoryJson));
  }
  return meanBudget(budgets);
}
