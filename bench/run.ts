import { mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { actionsBench } from './actions.bench';
import { checkpointBench } from './checkpoint.bench';
import { clientBench } from './client.bench';
import { eventsBench } from './events.bench';
import { mcpBench } from './mcp.bench';
import { repairBench } from './repair.bench';
import { scaleBench } from './scale.bench';
import { witnessesBench } from './witnesses.bench';
import { assaysBench } from './assays.bench';
import { budgetBench } from './budget.bench';
import { proofsBench } from './proofs.bench';
import { foundationBench, inboxBench, worldStateBench } from './get-vs-bare.bench';
import { growthBench } from './growth.bench';
import { sessionsBench } from './sessions.bench';
import { substrateDeploymentBench } from './substrate-deployment.bench';
import { substrateEngineBench } from './substrate-engine.bench';
import { tracingBench } from './tracing.bench';
import { writeReport, type BenchContext, type BenchReport } from './lib/report';

const SUITES: Record<string, (ctx: BenchContext) => Promise<BenchReport>> = {
  foundation: foundationBench,
  actions: actionsBench,
  sessions: sessionsBench,
  'world-state': worldStateBench,
  inbox: inboxBench,
  events: eventsBench,
  'substrate-engine': substrateEngineBench,
  'substrate-deployment': substrateDeploymentBench,
  checkpoint: checkpointBench,
  repair: repairBench,
  witnesses: witnessesBench,
  assays: assaysBench,
  proofs: proofsBench,
  scale: scaleBench,
  client: clientBench,
  mcp: mcpBench,
  tracing: tracingBench,
  budget: budgetBench,
  growth: growthBench,
};
/**
 * Suites only run when named: `tracing` reruns foundation and actions (traces off, on);
 * `budget` runs its four units twice (traces on for the counts, off for the CPU); `growth`
 * runs the budget's action as the store fills up.
 */
const ON_REQUEST = new Set(['tracing', 'budget', 'growth']);

/** Runs the benchmark suites named on the command line (all by default). */
async function main(): Promise<void> {
  const root = join(__dirname, '..', '..');
  const logDir = join(root, '.data', 'bench', 'logs');
  mkdirSync(logDir, { recursive: true });
  const ctx: BenchContext = {
    distDir: join(root, 'dist'),
    logDir,
    serversDataDir: process.env['GR_DATA_DIR'] ?? join(root, '.data', 'bench'),
    mongoBaseUri: process.env['BENCH_MONGODB_URI'] ?? 'mongodb://127.0.0.1:27019/',
    temporalAddress: process.env['BENCH_TEMPORAL_ADDRESS'] ?? '127.0.0.1:17234',
    connections: Number(process.env['BENCH_CONNECTIONS'] ?? 10),
    durationSeconds: Number(process.env['BENCH_DURATION'] ?? 10),
    warmupSeconds: Number(process.env['BENCH_WARMUP'] ?? 3),
    rounds: Number(process.env['BENCH_ROUNDS'] ?? 2),
  };
  const names =
    process.argv.slice(2).length > 0
      ? process.argv.slice(2)
      : Object.keys(SUITES).filter((name) => !ON_REQUEST.has(name));
  let failed = false;
  for (const name of names) {
    const suite = SUITES[name];
    if (!suite) throw new Error(`unknown suite ${name}; known: ${Object.keys(SUITES).join(', ')}`);
    const report = await suite(ctx);
    const markdown = writeReport(join(root, 'bench', 'results'), report, {
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      connections: ctx.connections,
      duration_s: ctx.durationSeconds,
      rounds: ctx.rounds,
    });
    console.log(markdown);
    failed ||= report.targets.some((t) => !t.met);
  }
  if (failed) console.log('Some targets were not met (see above).');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
