import { createSubstrate } from '../src/domain/substrates/engine';
import { postJson } from './lib/api';
import { startApiAndWorker } from './lib/processes';
import type { BenchContext, BenchReport } from './lib/report';
import { percentile } from './lib/stats';
import { benchPort } from './lib/ports';

const API_PORT = benchPort(18483);
const SIDE = Number(process.env['BENCH_DEPLOY_SIDE'] ?? 1024);
const TICKS = 1000;
const TARGET_OVERHEAD = 1.5;
const POLL_MS = 20;

interface DeploymentView {
  deployment_id: string;
  status: string;
  stage: string;
  final: { digest: string } | null;
  stage_timestamps: Record<string, string>;
}

const STAGES = ['validating', 'compiling', 'deploying', 'observing', 'assaying', 'ready'];

/**
 * Substrate deployment: the end-to-end time of a 1,000-tick deployment through the API
 * (POST deploy → validate, compile, deploy in chunks with snapshots, observe, assay →
 * `ready` seen by polling GET every 20 ms), against the engine alone stepping the same spec
 * 1,000 ticks in this process. Target: ≤ 1.5× the engine alone; both reach the same digest.
 */
export async function substrateDeploymentBench(ctx: BenchContext): Promise<BenchReport> {
  const servers = await startApiAndWorker({ ...ctx, suite: 'deploy', port: API_PORT });
  const { base, key } = servers;
  try {
    const specOf = (seed: number) => ({
      scaffold: 'life-lattice',
      envelope: 'lattice-standard',
      params: { width: SIDE, height: SIDE, rule: 'B3/S23', ticks: TICKS, seed },
    });
    const engineAlone = (seed: number) => {
      const started = performance.now();
      const state = createSubstrate('life-lattice', { ...specOf(seed).params, density: 0.5 });
      state.step(TICKS);
      return { ms: performance.now() - started, digest: state.digest() };
    };
    const deployment = async (seed: number) => {
      const started = performance.now();
      const created = await postJson<DeploymentView>(base, '/v1/substrates/deploy', key, {
        spec: specOf(seed),
      });
      for (;;) {
        const res = await fetch(`${base}/v1/substrates/deployments/${created.deployment_id}`, {
          headers: { 'X-API-Key': key },
        });
        const view = ((await res.json()) as { payload: DeploymentView }).payload;
        if (view.status !== 'running') {
          if (view.status !== 'ready') throw new Error(`deployment ended ${view.stage}`);
          const at = STAGES.map((stage) => Date.parse(view.stage_timestamps[stage]));
          const stageMs = Object.fromEntries(
            STAGES.slice(0, -1).map((stage, i) => [`${stage}Ms`, at[i + 1] - at[i]]),
          );
          return { ms: performance.now() - started, digest: view.final!.digest, stageMs };
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    };

    // Warm-up: JIT of both paths, worker caches, first workflow of the queue.
    engineAlone(1);
    await deployment(1);
    const engineMs: number[] = [];
    const deploymentMs: number[] = [];
    const stageMs: Record<string, number[]> = {};
    let sameDigest = true;
    for (let round = 0; round < Math.max(3, ctx.rounds * 2); round += 1) {
      const seed = 100 + round;
      const engine = engineAlone(seed);
      const ours = await deployment(seed);
      engineMs.push(engine.ms);
      deploymentMs.push(ours.ms);
      sameDigest &&= engine.digest === ours.digest;
      for (const [stage, ms] of Object.entries(ours.stageMs)) (stageMs[stage] ??= []).push(ms);
    }
    const engineMedian = percentile(engineMs, 50);
    const deploymentMedian = percentile(deploymentMs, 50);
    const overhead = Math.round((deploymentMedian / engineMedian) * 100) / 100;
    const round2 = (n: number) => Math.round(n);
    return {
      suite: 'substrate-deployment',
      description: `A ${TICKS}-tick ${SIDE}x${SIDE} B3/S23 deployment through the API (deploy → ready, polled every ${POLL_MS} ms) vs the engine alone stepping the same spec in process; medians of ${engineMs.length} rounds`,
      results: {
        deployment: {
          medianMs: round2(deploymentMedian),
          minMs: round2(Math.min(...deploymentMs)),
          maxMs: round2(Math.max(...deploymentMs)),
          workerPeakRssMiB: servers.worker.peakRssMiB(),
        },
        stages_median: Object.fromEntries(
          Object.entries(stageMs).map(([stage, values]) => [stage, percentile(values, 50)]),
        ),
        engine_alone: {
          medianMs: round2(engineMedian),
          minMs: round2(Math.min(...engineMs)),
          maxMs: round2(Math.max(...engineMs)),
        },
      },
      ratios: { overhead },
      targets: [
        {
          name: `deployment ≤ ${TARGET_OVERHEAD}× the engine alone`,
          met: overhead <= TARGET_OVERHEAD,
        },
        { name: 'same final digest as the engine alone', met: sameDigest },
      ],
    };
  } finally {
    await servers.stop();
  }
}
