import { actionsBench } from './actions.bench';
import { foundationBench } from './get-vs-bare.bench';
import { startOtlpSink, type OtlpSink } from './lib/otlp-sink';
import type { BenchContext, BenchReport } from './lib/report';

type Mode = 'off' | 'on';
type Row = Record<string, number>;

const TRACING_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_SDK_DISABLED',
  'OTEL_TRACES_EXPORTER',
];

/**
 * Issue 32's measure: the `foundation` and `actions` suites with traces off (no `OTEL_*`
 * variable: nothing of OpenTelemetry starts) and on (every span exported over OTLP, JSON unless
 * `BENCH_TRACING_PROTOCOL` says `http/protobuf`, to
 * a local receiver that discards them), alternating off/on `BENCH_TRACING_ROUNDS` times
 * (default 2) so the machine's drift falls on both. The api and worker processes the suites
 * start inherit this process's environment. Each suite also runs its bare baseline, so the
 * ratio to bare is reported beside the raw figures (it cancels some of a shared machine's
 * noise). Target: traces cost ≤ 10% of throughput.
 */
export async function tracingBench(ctx: BenchContext): Promise<BenchReport> {
  const rounds = Number(process.env['BENCH_TRACING_ROUNDS'] ?? 2);
  // BENCH_TRACING_SUITES=foundation: the actions half takes ~10 minutes a run on a busy machine.
  const suites = (process.env['BENCH_TRACING_SUITES'] ?? 'foundation,actions').split(',');
  const protocol = process.env['BENCH_TRACING_PROTOCOL'] ?? 'http/json';
  const sink = await startOtlpSink();
  const foundation: Record<Mode, Row[]> = { off: [], on: [] };
  const actions: Record<Mode, Row[]> = { off: [], on: [] };
  const results: Record<string, Row> = {};
  try {
    for (let round = 1; suites.includes('foundation') && round <= rounds; round += 1) {
      for (const mode of ['off', 'on'] as const) {
        const row = await traced(mode, protocol, sink, async () =>
          foundationRow(await foundationBench(ctx)),
        );
        foundation[mode].push(row);
        results[`foundation ${mode} #${round}`] = row;
        console.log(`tracing bench: foundation ${mode} #${round}`, JSON.stringify(row));
      }
    }
    for (let round = 1; suites.includes('actions') && round <= rounds; round += 1) {
      for (const mode of ['off', 'on'] as const) {
        const row = await traced(mode, protocol, sink, async () =>
          actionsRow(await actionsBench(ctx)),
        );
        actions[mode].push(row);
        results[`actions ${mode} #${round}`] = row;
        console.log(`tracing bench: actions ${mode} #${round}`, JSON.stringify(row));
      }
    }
  } finally {
    await sink.stop();
  }
  const cost = (rows: Record<Mode, Row[]>, key: string) =>
    round3(mean(rows.on.map((r) => r[key])) / mean(rows.off.map((r) => r[key])));
  const ratios: Record<string, number> = {};
  const targets: BenchReport['targets'] = [];
  if (foundation.on.length > 0) {
    Object.assign(ratios, {
      foundationThroughput: cost(foundation, 'requestsPerSecond'),
      foundationThroughputVsBare: cost(foundation, 'throughputVsBare'),
      foundationP50: cost(foundation, 'p50Ms'),
      foundationThroughputPairsMedian: pairsMedian(foundation, 'requestsPerSecond'),
      foundationCpuPerRequest: cost(foundation, 'cpuUs_server'),
      foundationStackCpuPerRequest: cost(foundation, 'cpuUs_stack'),
    });
    targets.push({
      name: 'traces on: foundation throughput ≥ 0.9× off',
      met: ratios['foundationThroughput'] >= 0.9,
    });
  }
  if (actions.on.length > 0) {
    Object.assign(ratios, {
      actionsThroughput: cost(actions, 'actionsPerSecond'),
      actionsThroughputVsBare: cost(actions, 'throughputVsBare'),
      actionsEndToEndP50: cost(actions, 'endToEndP50Ms'),
      actionsThroughputPairsMedian: pairsMedian(actions, 'actionsPerSecond'),
      actionsCpuPerAction: cost(actions, 'cpuMs_ours'),
      actionsStackCpuPerAction: cost(actions, 'cpuMs_stack'),
    });
    targets.push({
      name: 'traces on: actions throughput ≥ 0.9× off',
      met: ratios['actionsThroughput'] >= 0.9,
    });
  }
  const spansOff = [...foundation.off, ...actions.off].reduce((n, r) => n + r['spansExported'], 0);
  targets.push({ name: 'traces off: nothing exported', met: spansOff === 0 });
  return {
    suite: 'tracing',
    description: `Traces on (${protocol} to a local receiver that counts and discards) vs off (no OTEL_* variable), ${suites.join(' and ')} suites, ${rounds} alternating off/on rounds each; ratios are on ÷ off of the means; throughputVsBare: ours ÷ the suite's bare baseline in the same run; cpuUs_server / cpuMs_ours: our processes' CPU per request / per action; cpuUs_stack / cpuMs_stack: every process of the measured stack (ours, FerretDB, Temporal where it runs, the load generator with the receiver), the cost a CPU-bound machine pays in throughput; PairsMedian: the median of the rounds' on ÷ off`,
    results,
    ratios,
    figures: { spansExportedWhileOff: spansOff },
    targets,
  };
}

/** Runs `measure` with the tracing variables set (on) or absent (off), then restores them. */
async function traced(
  mode: Mode,
  protocol: string,
  sink: OtlpSink,
  measure: () => Promise<Row>,
): Promise<Row> {
  const saved = Object.fromEntries(TRACING_VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of TRACING_VARIABLES) delete process.env[name];
  if (mode === 'on') {
    process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = sink.url;
    process.env['OTEL_EXPORTER_OTLP_PROTOCOL'] = protocol;
  }
  const before = { spans: sink.spans, bytes: sink.bytes };
  try {
    const row = await measure();
    // The processes flush their last batch as they stop, before the suite returns.
    return {
      ...row,
      spansExported: sink.spans - before.spans,
      exportedKiB: Math.round((sink.bytes - before.bytes) / 1024),
    };
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

function foundationRow(report: BenchReport): Row {
  const ours = report.results['ours'];
  const bare = report.results['bare'];
  return {
    requestsPerSecond: ours['requestsPerSecond'],
    p50Ms: ours['p50Ms'],
    p99Ms: ours['p99Ms'],
    cpuUs_server: ours['cpuUs_server'],
    cpuUs_stack: ours['cpuUs_total'],
    throughputVsBare: round3(ours['requestsPerSecond'] / bare['requestsPerSecond']),
  };
}

function actionsRow(report: BenchReport): Row {
  const ours = report.results['ours'];
  const bare = report.results['bare'];
  return {
    actionsPerSecond: ours['actionsPerSecond'],
    endToEndP50Ms: ours['endToEndP50Ms'],
    endToEndP99Ms: ours['endToEndP99Ms'],
    cpuMs_ours: round3((ours['cpuMs_api'] ?? 0) + (ours['cpuMs_worker'] ?? 0)),
    cpuMs_stack: ours['cpuMs_total'],
    throughputVsBare: round3(ours['actionsPerSecond'] / bare['actionsPerSecond']),
  };
}

/**
 * The median of each round's on ÷ off: one round landing on a busy moment of a shared machine
 * moves it less than it moves the ratio of the means.
 */
function pairsMedian(rows: Record<Mode, Row[]>, key: string): number {
  const pairs = rows.on.map((on, i) => on[key] / rows.off[i][key]).sort((a, b) => a - b);
  const middle = Math.floor(pairs.length / 2);
  const median = pairs.length % 2 ? pairs[middle] : (pairs[middle - 1] + pairs[middle]) / 2;
  return round3(median);
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const round3 = (value: number) => Math.round(value * 1000) / 1000;
