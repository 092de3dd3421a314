import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { connectTemporal } from '../src/temporal/connect';
import {
  eventRows,
  historyBudget,
  meanBudget,
  temporalWaitRows,
  workRows,
  type HistoryBudget,
  type HistoryJson,
} from './lib/budget-history';
import { budgetTable, mongoSummary, stepRows, tracesOf, type Trace } from './lib/budget-spans';
import {
  apiCommandCounts,
  budgetUnits,
  budgetWorld,
  seedIngestObjects,
  startBudgetStack,
  type BudgetWorld,
  type Unit,
} from './lib/budget-units';
import { cpuMsPerUnit, serverPid, type CpuPerUnit } from './lib/cpu';
import { startOtlpCollector, type OtlpCollector } from './lib/otlp-collector';
import { benchPort } from './lib/ports';
import type { BenchContext, BenchReport } from './lib/report';
import { seedActions } from './lib/seed-actions';
import { percentile, timed } from './lib/stats';

const API_PORT = benchPort(18492);
const INBOX_ACTIONS = 10_000;
const WARMUP = 5;
const count = (name: string, fallback: number) =>
  Number(process.env[`BENCH_BUDGET_${name}`] ?? fallback);
/** Units per unit kind: in the traced pass (counts, spans) and the CPU pass (traces off). */
const TRACED = {
  action: count('TRACED_ACTIONS', 20),
  status: count('TRACED_GETS', 300),
  ingest: count('TRACED_BATCHES', 10),
  inbox: count('TRACED_PAGES', 100),
};
const UNTRACED = {
  action: count('ACTIONS', 50),
  status: count('GETS', 2000),
  ingest: count('BATCHES', 20),
  inbox: count('PAGES', 500),
};
type Kind = keyof typeof TRACED;
const KINDS: Kind[] = ['status', 'inbox', 'ingest', 'action'];

const OTEL_VARIABLES = Object.keys(process.env).filter((name) => name.startsWith('OTEL_'));

/** One kind's traced run: the window its traces' roots started in, and what it returned. */
interface TracedRun {
  unit: Unit;
  units: number;
  from: number;
  to: number;
  results: unknown[];
  wallMs: number[];
  /** The api's MongoDB commands during the run, by name (its metrics: every command). */
  apiCommands: Record<string, number>;
}

interface UntracedRun {
  unit: Unit;
  units: number;
  results: unknown[];
  wallMs: number[];
  cpu: CpuPerUnit;
}

/**
 * The budget (issue 44): where the milliseconds and the CPU of one action (propose → approve
 * → execute over HTTP), one authenticated `GET /v1/runtime/status`, one ingest batch (the
 * events suite's 500 events) and one inbox page (10,000 actions stored, as the inbox suite
 * seeds them) go. Two passes on one database:
 *
 * - traces on (OTLP/JSON to a receiver in this process that parses every span): each MongoDB
 *   command (a span per command, by process, collection and command), each Temporal client
 *   call, workflow handler and activity; each step's share of the requests' critical paths;
 *   the action's history (events by type, workflow tasks, activities, local activities,
 *   updates) beside a bare Temporal workflow's; the api's commands outside any trace
 *   (its metrics' count minus the traced ones: background flushes);
 * - traces off (no `OTEL_*` variable): CPU ms per unit of every process, wall-clock p50.
 *
 * Units run one at a time, back to back, after a few warm-up units.
 */
export async function budgetBench(ctx: BenchContext): Promise<BenchReport> {
  const saved = Object.fromEntries(OTEL_VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of OTEL_VARIABLES) delete process.env[name];
  const loadBefore = loadavg();
  const collector = await startOtlpCollector();
  const connection = await connectTemporal({ address: ctx.temporalAddress });
  const client = new Client({ connection });
  const world = budgetWorld(ctx);
  try {
    const traced = await tracedPass(ctx, world, client, collector);
    // Every span received, for a closer look (not committed: the log directory is .data/).
    writeFileSync(join(ctx.logDir, 'budget-spans.json'), JSON.stringify(collector.spans));
    const untraced = await untracedPass(ctx, world, client);
    const histories = {
      ours: await historiesOf(client, traced.action),
      bare: await historiesOf(client, untraced.bare),
    };
    return report(traced, untraced, histories, collector, [loadBefore, loadavg()]);
  } finally {
    await connection.close();
    await collector.stop();
    for (const [name, value] of Object.entries(saved))
      if (value !== undefined) process.env[name] = value;
  }
}

async function tracedPass(
  ctx: BenchContext,
  world: BudgetWorld,
  client: Client,
  collector: OtlpCollector,
): Promise<Record<Kind, TracedRun>> {
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
  const runs: Partial<Record<Kind, TracedRun>> = {};
  try {
    // The inbox suite's and the events suite's data, written once for both passes.
    await seedActions(world.mongoUri, INBOX_ACTIONS);
    await seedIngestObjects(world);
    const units = budgetUnits(stack, world, client);
    for (const kind of KINDS) {
      const unit = units[kind];
      for (let i = 0; i < WARMUP; i += 1) await unit.run(-1 - i);
      await pause(100);
      const before = await apiCommandCounts(stack.base, world.adminKey);
      const from = Date.now();
      const results: unknown[] = [];
      const wallMs: number[] = [];
      for (let i = 0; i < TRACED[kind]; i += 1) {
        const [result, ms] = await timed(() => unit.run(i));
        results.push(result);
        wallMs.push(ms);
      }
      const to = Date.now();
      const after = await apiCommandCounts(stack.base, world.adminKey);
      const apiCommands = Object.fromEntries(
        Object.keys(after).map((name) => [name, after[name] - (before[name] ?? 0)]),
      );
      runs[kind] = { unit, units: TRACED[kind], from, to, results, wallMs, apiCommands };
      console.log(`budget: traced ${unit.name} ×${TRACED[kind]}`);
    }
  } finally {
    // Stopping flushes each process's last spans to the collector.
    await stack.stop();
  }
  return runs as Record<Kind, TracedRun>;
}

async function untracedPass(
  ctx: BenchContext,
  world: BudgetWorld,
  client: Client,
): Promise<Record<Kind | 'bare', UntracedRun>> {
  const stack = await startBudgetStack(ctx, world, {
    port: API_PORT,
    client,
    withBare: true,
    name: 'budget',
    extraEnv: {},
  });
  const runs: Partial<Record<Kind | 'bare', UntracedRun>> = {};
  try {
    const units = budgetUnits(stack, world, client);
    const servers = {
      ferretdb: serverPid(ctx.serversDataDir, 'ferretdb'),
      temporal: serverPid(ctx.serversDataDir, 'temporal'),
      client: process.pid,
    };
    const ours = { api: stack.api.child.pid, worker: stack.worker.child.pid, ...servers };
    const bare = { api: undefined, worker: stack.bareWorker?.child.pid, ...servers };
    const plan: [Kind | 'bare', Unit, number, Record<string, number | undefined>][] = [
      ...KINDS.map((kind): [Kind, Unit, number, typeof ours] => [
        kind,
        units[kind],
        UNTRACED[kind],
        ours,
      ]),
      ['bare', units.bareAction, UNTRACED.action, bare],
    ];
    for (const [kind, unit, units_, processes] of plan) {
      for (let i = 0; i < WARMUP; i += 1) await unit.run(-1 - i);
      const results: unknown[] = [];
      const wallMs: number[] = [];
      const cpu = await cpuMsPerUnit(
        processes,
        () => units_,
        async () => {
          for (let i = 0; i < units_; i += 1) {
            const [result, ms] = await timed(() => unit.run(i));
            results.push(result);
            wallMs.push(ms);
          }
        },
      );
      runs[kind] = { unit, units: units_, results, wallMs, cpu };
      console.log(`budget: untraced ${unit.name} ×${units_}`);
    }
  } finally {
    await stack.stop();
  }
  return runs as Record<Kind | 'bare', UntracedRun>;
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

function report(
  traced: Record<Kind, TracedRun>,
  untraced: Record<Kind | 'bare', UntracedRun>,
  histories: { ours: HistoryBudget; bare: HistoryBudget },
  collector: OtlpCollector,
  load: [number[], number[]],
): BenchReport {
  const { traces, orphans } = tracesOf(collector.spans);
  const results: BenchReport['results'] = {};
  const sections: NonNullable<BenchReport['sections']> = [];
  const offTrace: Record<string, Record<string, number>> = {};
  let actionRows: ReturnType<typeof stepRows> = [];
  for (const kind of KINDS) {
    const run = traced[kind];
    const mine = traces.filter(
      (t: Trace) =>
        t.root.startMs >= run.from && t.root.startMs <= run.to && run.unit.roots.test(t.root.name),
    );
    const rows = stepRows(mine);
    if (kind === 'action') actionRows = rows;
    const table = budgetTable(rows, run.units);
    const mongo = mongoSummary(rows, run.units);
    // Commands the api sent outside every trace (its background flushes), per unit.
    const tracedApi: Record<string, number> = {};
    for (const row of rows) {
      if (row.process !== 'api' || !row.step.startsWith('mongo ')) continue;
      const command = row.step.split(' ')[1];
      tracedApi[command] = (tracedApi[command] ?? 0) + row.count;
    }
    offTrace[run.unit.name] = Object.fromEntries(
      Object.entries(run.apiCommands)
        .map(([name, n]): [string, number] => [
          name,
          round((n - (tracedApi[name] ?? 0)) / run.units, 100),
        ])
        .filter(([, n]) => n !== 0),
    );
    const cpuRun = untraced[kind];
    results[run.unit.name] = {
      wallP50Ms: percentile(cpuRun.wallMs, 50),
      wallP50MsTraced: percentile(run.wallMs, 50),
      pathMs: Number(table['total']['pathMs']),
      tracesPerUnit: round(mine.length / run.units, 100),
      mongo_api: mongo['mongo_api'] ?? 0,
      mongo_worker: mongo['mongo_worker'] ?? 0,
      mongoPathMs: mongo['mongoPathMs'] ?? 0,
      apiCommandsAll: round(sumValues(run.apiCommands) / run.units, 100),
      ...(kind === 'action'
        ? {
            historyEvents: sumValues(histories.ours.events),
            activations: histories.ours.activations,
          }
        : {}),
      cpuMs_total: cpuRun.cpu['total'],
    };
    sections.push({
      title: `${run.unit.name}: where each unit's milliseconds go (traces on, ${run.units} units)`,
      key: 'step',
      results: table,
    });
  }
  results[untraced.bare.unit.name] = {
    wallP50Ms: percentile(untraced.bare.wallMs, 50),
    historyEvents: sumValues(histories.bare.events),
    activations: histories.bare.activations,
    cpuMs_total: untraced.bare.cpu['total'],
  };
  const cpuRows = Object.fromEntries(
    ([...KINDS, 'bare'] as const).map((kind) => [untraced[kind].unit.name, untraced[kind].cpu]),
  );
  sections.push(
    {
      title: 'CPU ms per unit, by process (traces off)',
      note: `Units run one at a time: ${KINDS.map((k) => `${untraced[k].units} × ${untraced[k].unit.name}`).join(', ')}, ${untraced.bare.units} bare actions; client: this bench process (the load generator).`,
      key: 'unit',
      results: cpuRows,
    },
    {
      title:
        "The api's MongoDB commands outside any trace, per unit (its metrics minus the traced)",
      note: 'Background work the requests do not wait for (request ledger, rate counters, monitors), amortised over the units of the run.',
      key: 'unit',
      results: offTrace,
    },
    {
      title: "Action: the api's waits on Temporal, ms per action",
      note: "The `temporal …` rows of the action table split by the history: the bare column is the bare workflow's history (traces off).",
      key: 'wait',
      results: temporalWaitRows(actionRows, traced.action.units, histories.ours, histories.bare),
    },
    {
      title: 'Action vs bare Temporal: history events per action, by type',
      key: 'event',
      results: eventRows(histories.ours, histories.bare),
    },
    {
      title:
        'Action vs bare Temporal: workflow tasks, activities, local activities, updates per action',
      key: 'work',
      results: workRows(histories.ours, histories.bare),
    },
  );
  const ours = untraced.action.cpu;
  const bare = untraced.bare.cpu;
  const ratios = {
    actionP50: round(
      results['action']['wallP50Ms'] / results[untraced.bare.unit.name]['wallP50Ms'],
      100,
    ),
    historyEvents: round(sumValues(histories.ours.events) / sumValues(histories.bare.events), 100),
    activations: round(histories.ours.activations / histories.bare.activations, 100),
    workerCpu: round((ours['worker'] ?? 0) / (bare['worker'] || 1), 100),
    temporalCpu: round((ours['temporal'] ?? 0) / (bare['temporal'] || 1), 100),
  };
  return {
    suite: 'budget',
    description: [
      'Where the milliseconds and the CPU of one unit go: one action (propose → approve → execute over HTTP, notify kind), one authenticated GET /v1/runtime/status, one ingest batch (500 events, 20 objects), one inbox page (GET /v1/external-actions?status=awaiting_approval, 10,000 actions stored), one at a time.',
      'Counts and span times come from a pass with traces on (every span parsed by a receiver in the bench); CPU and wallP50Ms from a pass with traces off.',
      "Step tables: count = spans per unit; pathMs = the step's share of the requests' critical paths (its self time on the path; the rows sum to the requests' server-side time, `total`); spanMs = the spans' durations per unit (a parent's includes its children's); msEach = mean span duration.",
      "`http <route>`: the request's own work between its children (middleware, validation, JSON). `temporal <call>` (a Temporal client call of the api): waiting on the Temporal server and the worker's workflow tasks, beyond the activity spans beneath it. Process `workflow`: spans the workflow makes in its sandbox (RunWorkflow, HandleUpdate, StartActivity), stamped in workflow time: counted, never on the critical path (their children count under the client call). Span starts are whole milliseconds (durations are exact), so a share can be off by a millisecond.",
      "Headline: pathMs = server-side critical path per unit; mongo_api / mongo_worker = MongoDB commands in the unit's traces; apiCommandsAll = every command the api sent during the run (metrics), background included.",
    ].join('\n\n'),
    results,
    ratios,
    figures: {
      spansReceived: collector.spans.length,
      tracesWithoutRoot: orphans,
      unreadableExports: collector.unreadable,
      loadAverage1mBefore: round(load[0][0], 100),
      loadAverage1mAfter: round(load[1][0], 100),
    },
    sections,
    targets: [
      {
        name: 'every export parsed and every trace rooted',
        met: collector.unreadable === 0 && orphans === 0,
      },
      {
        name: 'history events per action ≤ 24 (issue 44)',
        met: sumValues(histories.ours.events) <= 24,
      },
      { name: 'worker CPU per action ≤ 2× bare (issue 44)', met: ratios.workerCpu <= 2 },
      {
        name: 'Temporal server CPU per action ≤ 1.1× bare (issue 44)',
        met: ratios.temporalCpu <= 1.1,
      },
      { name: 'action end-to-end p50 ≤ 1.25× bare (issue 44)', met: ratios.actionP50 <= 1.25 },
      {
        name: 'inbox page p50 ≤ 20 ms (issue 44)',
        met: results['inbox page']['wallP50Ms'] <= 20,
      },
    ],
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sumValues = (counts: Record<string, number>): number =>
  round(
    Object.values(counts).reduce((s, v) => s + v, 0),
    10,
  );
const round = (value: number, scale: number): number => Math.round(value * scale) / scale;
