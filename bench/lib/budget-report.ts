import { actionTimeRows, eventRows, workRows, type HistoryBudget } from './budget-history';
import {
  addedRows,
  budgetTable,
  mongoSummary,
  stepRows,
  tracesOf,
  type StepRow,
  type Trace,
} from './budget-spans';
import type { Unit } from './budget-units';
import type { CpuPerUnit } from './cpu';
import type { OtlpCollector } from './otlp-collector';
import type { BenchReport } from './report';
import { percentile } from './stats';

/** One kind's traced run: the window its traces' roots started in, and what it returned. */
export interface TracedRun {
  unit: Unit;
  units: number;
  from: number;
  to: number;
  results: unknown[];
  wallMs: number[];
  /** The api's MongoDB commands during the run, by name (its metrics: every command). */
  apiCommands: Record<string, number>;
}

/** One kind's run with traces off, and the CPU each process spent per unit. */
export interface UntracedRun {
  unit: Unit;
  units: number;
  results: unknown[];
  wallMs: number[];
  cpu: CpuPerUnit;
}

/** The four units the budget measures. */
export type BudgetKind = 'action' | 'status' | 'inbox' | 'ingest';

export interface BudgetRuns {
  traced: Record<BudgetKind | 'actionAfterData', TracedRun>;
  untraced: Record<
    BudgetKind | 'bare' | 'actionAfterData' | 'idleFresh' | 'idleAfterData',
    UntracedRun
  >;
  histories: { ours: HistoryBudget; bare: HistoryBudget };
  collector: OtlpCollector;
  /** The order the tables follow. */
  kinds: readonly BudgetKind[];
  /** The 1-minute load average before and after the run. */
  load: [number, number];
}

const DESCRIPTION = [
  "Where the milliseconds and the CPU of one unit go: one action (propose → approve → execute over HTTP, notify kind, on an empty store as in the actions suite), one authenticated GET /v1/runtime/status, one ingest batch (500 events about 20 objects, the events suite's batch), one inbox page (GET /v1/external-actions?status=awaiting_approval, 10,000 actions stored, the inbox suite's data), one at a time. Regenerate: `npm run bench budget`.",
  "Two passes, each on a fresh database: traces on (every span parsed by a receiver in the bench) for the counts and the step tables; traces off for CPU, wallP50Ms and the histories. Traces cost time (most in the action, whose traced workflows load OpenTelemetry in the sandbox): compare wallP50MsTraced with wallP50Ms, and read the step tables' ms as proportions.",
  "Step tables: count = spans per unit; pathMs = the step's share of the requests' critical paths (its self time on the path; the rows sum to the requests' server-side time, `total`); spanMs = the spans' durations per unit (a parent's includes its children's); msEach = mean span duration.",
  "`http <route>`: the request's own work between its children (middleware, validation, JSON). `temporal <call>` (a Temporal client call of the api): waiting on the Temporal server and the worker's workflow tasks, beyond the activity spans beneath it. Process `workflow`: spans the workflow makes in its sandbox (RunWorkflow, HandleUpdate, StartActivity), stamped in workflow time: counted, never on the critical path (their children count under the client call). Span starts are whole milliseconds (durations are exact), so a share can be off by a millisecond.",
  "Headline: pathMs = server-side critical path per unit (traces on); mongo_api / mongo_worker = MongoDB commands in the unit's traces; apiCommandsAll = every command the api sent during the run (its metrics), background included.",
].join('\n\n');

/** The budget's report: the headline per unit, a step table per unit, CPU, the action vs bare. */
export function budgetReport(runs: BudgetRuns): BenchReport {
  const { traced, untraced, histories, collector } = runs;
  const { traces, orphans } = tracesOf(collector.spans);
  const results: BenchReport['results'] = {};
  const sections: NonNullable<BenchReport['sections']> = [];
  const offTrace: Record<string, Record<string, number>> = {};
  const tracesOfRun = (run: TracedRun): Trace[] =>
    traces.filter(
      (t) =>
        t.root.startMs >= run.from && t.root.startMs <= run.to && run.unit.roots.test(t.root.name),
    );
  for (const kind of runs.kinds) {
    const run = traced[kind];
    const mine = tracesOfRun(run);
    const rows = stepRows(mine);
    // The action's steps are many: a few more rows keep its Temporal and store steps in view.
    const table = budgetTable(rows, run.units, kind === 'action' ? 16 : 14);
    const mongo = mongoSummary(rows, run.units);
    offTrace[run.unit.name] = offTraceCommands(rows, run);
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
  const { bare, actionAfterData: after } = untraced;
  // The action's rows together: ours, bare, ours after the data; then the other units.
  const action = traced.action.unit.name;
  const others = Object.fromEntries(Object.entries(results).filter(([name]) => name !== action));
  for (const name of Object.keys(others)) delete results[name];
  results[bare.unit.name] = {
    wallP50Ms: percentile(bare.wallMs, 50),
    historyEvents: sumValues(histories.bare.events),
    activations: histories.bare.activations,
    cpuMs_total: bare.cpu['total'],
  };
  results[after.unit.name] = {
    wallP50Ms: percentile(after.wallMs, 50),
    cpuMs_total: after.cpu['total'],
  };
  Object.assign(results, others);
  const cpuKinds = [
    'action',
    'bare',
    'actionAfterData',
    ...runs.kinds.filter((k) => k !== 'action'),
    'idleFresh',
    'idleAfterData',
  ] as const;
  sections.push(
    {
      title: 'CPU ms per unit, by process (traces off)',
      note: `Units run one at a time: ${cpuKinds.map((k) => `${untraced[k].units} × ${untraced[k].unit.name}`).join(', ')}. client: this bench process (the load generator).`,
      key: 'unit',
      results: Object.fromEntries(cpuKinds.map((k) => [untraced[k].unit.name, untraced[k].cpu])),
    },
    {
      title: `What the other units' data costs the action: the steps that grew most (traces on, ${traced.actionAfterData.units} units)`,
      note: "The action on an empty store, then once more after the inbox suite's 10,000 actions and the ingest batches were stored; addedMs: span ms per action added.",
      key: 'step',
      results: addedRows(
        stepRows(tracesOfRun(traced.action)),
        traced.action.units,
        stepRows(tracesOfRun(traced.actionAfterData)),
        traced.actionAfterData.units,
      ),
    },
    {
      title:
        "The api's MongoDB commands outside any trace, per unit (its metrics minus the traced)",
      note: 'Background work the requests do not wait for (request ledger, rate counters, monitors), amortised over the units of the run.',
      key: 'unit',
      results: offTrace,
    },
    {
      title: 'Action vs bare Temporal: where the end-to-end time goes, ms per action (traces off)',
      note: 'Each workflow task of an action driven by one request at a time is waited on; the rest is the api, the Temporal server and HTTP.',
      key: 'time',
      results: actionTimeRows(
        { wallMs: untraced.action.wallMs, history: histories.ours },
        { wallMs: bare.wallMs, history: histories.bare },
      ),
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
  const ours = untraced.action;
  const ratios = {
    actionP50: round(percentile(ours.wallMs, 50) / percentile(bare.wallMs, 50), 100),
    historyEvents: round(sumValues(histories.ours.events) / sumValues(histories.bare.events), 100),
    activations: round(histories.ours.activations / histories.bare.activations, 100),
    workerCpu: round((ours.cpu['worker'] ?? 0) / (bare.cpu['worker'] || 1), 100),
    temporalCpu: round((ours.cpu['temporal'] ?? 0) / (bare.cpu['temporal'] || 1), 100),
  };
  const inbox = Object.values(untraced).find((r) => r.unit.name === 'inbox page');
  return {
    suite: 'budget',
    description: DESCRIPTION,
    results,
    ratios,
    figures: {
      spansReceived: collector.spans.length,
      tracesWithoutRoot: orphans,
      unreadableExports: collector.unreadable,
      loadAverage1mBefore: round(runs.load[0], 100),
      loadAverage1mAfter: round(runs.load[1], 100),
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
        met: inbox !== undefined && percentile(inbox.wallMs, 50) <= 20,
      },
    ],
  };
}

/** The api's commands outside every trace (its background flushes), per unit, by name. */
function offTraceCommands(rows: readonly StepRow[], run: TracedRun): Record<string, number> {
  const tracedApi: Record<string, number> = {};
  for (const row of rows) {
    if (row.process !== 'api' || !row.step.startsWith('mongo ')) continue;
    const command = row.step.split(' ')[1];
    tracedApi[command] = (tracedApi[command] ?? 0) + row.count;
  }
  return Object.fromEntries(
    Object.entries(run.apiCommands)
      .map(([name, n]): [string, number] => [
        name,
        round((n - (tracedApi[name] ?? 0)) / run.units, 100),
      ])
      .filter(([, n]) => n !== 0),
  );
}

const sumValues = (counts: Record<string, number>): number =>
  round(
    Object.values(counts).reduce((s, v) => s + v, 0),
    10,
  );
const round = (value: number, scale: number): number => Math.round(value * scale) / scale;
