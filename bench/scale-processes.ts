import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { connectTemporal } from '../src/temporal/connect';
import { mintApiKey } from '../src/auth/api-key';
import { approveAndExecute, createUnlimitedKey, postJson, proposeNotify } from './lib/api';
import { cpuMsPerUnit, serverPid } from './lib/cpu';
import { startNodeProcess, startNodeServer, type ServerProcess } from './lib/processes';
import type { BenchContext } from './lib/report';
import { runConcurrently } from './lib/stats';
import { benchPort } from './lib/ports';

/** Api ports of this suite: 18610, 18611, … (the read curve's api has 18600), shifted by BENCH_PORT_BASE. */
const FIRST_API_PORT = benchPort(18610);
const ACTIONS = Number(process.env['BENCH_SCALE_ACTIONS'] ?? 100);
const ACTIONS_IN_FLIGHT = 20;
const DEPLOYMENTS = Number(process.env['BENCH_SCALE_DEPLOYMENTS'] ?? 8);
const DEPLOYMENTS_IN_FLIGHT = 4;
const SIDE = Number(process.env['BENCH_DEPLOY_SIDE'] ?? 1024);
const TICKS = 1000;
const POLL_MS = 50;

/** How many api and worker processes, all on one database, task queue and Temporal. */
export interface Topology {
  apis: number;
  workers: number;
}

export const TOPOLOGIES: Topology[] = [
  { apis: 1, workers: 1 },
  { apis: 1, workers: 2 },
  { apis: 1, workers: 4 },
  { apis: 2, workers: 2 },
  { apis: 2, workers: 4 },
];

/** What one topology did: throughput and where the CPU went, per action and per deployment. */
export type TopologyResult = Record<string, number>;

/**
 * Cost as work grows across processes (issue 17 item 6): for each topology, `ACTIONS` full
 * action lifecycles over HTTP (propose → approve → execute, 20 in flight, spread over the
 * api processes in turn) and `DEPLOYMENTS` substrate deployments (4 in flight), with the CPU
 * each process kind spent per action and per deployment. The servers (Temporal, FerretDB)
 * are the same embedded ones for every topology; each topology gets a fresh database and
 * task queue.
 */
export async function scaleProcesses(
  ctx: BenchContext,
  topology: Topology,
): Promise<TopologyResult> {
  const suffix = randomBytes(3).toString('hex');
  const taskQueue = `bench-scale-${suffix}`;
  const adminKey = mintApiKey(randomBytes(6).toString('hex'));
  const env = {
    MONGODB_URI: `${ctx.mongoBaseUri}bench_scale_procs_${suffix}`,
    TEMPORAL_ADDRESS: ctx.temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    KEY_PEPPER: randomBytes(32).toString('hex'),
    ADMIN_API_KEY: adminKey,
    LOG_LEVEL: 'warn',
  };
  const connection = await connectTemporal({ address: ctx.temporalAddress });
  const client = new Client({ connection });
  const apis: ServerProcess[] = [];
  const workers: ServerProcess[] = [];
  const label = `scale-${topology.apis}a${topology.workers}w`;
  try {
    for (let i = 0; i < topology.apis; i += 1) {
      const port = FIRST_API_PORT + i;
      apis.push(
        await startNodeServer(
          join(ctx.distDir, 'src', 'main.js'),
          { ...env, PORT: String(port) },
          join(ctx.logDir, `${label}-api${i}.log`),
          `http://127.0.0.1:${port}/healthz`,
        ),
      );
    }
    const bases = apis.map((_, i) => `http://127.0.0.1:${FIRST_API_PORT + i}`);
    for (let i = 0; i < topology.workers; i += 1) {
      const wanted = i + 1;
      workers.push(
        await startNodeProcess(
          join(ctx.distDir, 'src', 'worker.js'),
          env,
          join(ctx.logDir, `${label}-worker${i}.log`),
          async () => {
            const described = await client.workflowService.describeTaskQueue({
              namespace: 'default',
              taskQueue: { name: taskQueue },
              taskQueueType: 1,
            });
            return (described.pollers ?? []).length >= wanted;
          },
        ),
      );
    }
    const proposer = await createUnlimitedKey(bases[0], adminKey);
    // A key of its own per deployment: a key may run 4 at once, and a finished deployment's
    // slot is freed a moment after its final stage is visible.
    const deployKeys: string[] = [];
    for (let i = 0; i <= DEPLOYMENTS; i += 1) {
      deployKeys.push(await createUnlimitedKey(bases[0], adminKey));
    }
    const approver = await createUnlimitedKey(bases[0], adminKey);
    const baseOf = (i: number) => bases[i % bases.length];
    const lifecycle = async (i: number) => {
      const base = baseOf(i);
      await approveAndExecute(base, approver, await proposeNotify(base, proposer, `scale ${i}`));
    };
    const deployment = async (i: number) => {
      const base = baseOf(i);
      const created = await postJson<{ deployment_id: string }>(
        base,
        '/v1/substrates/deploy',
        deployKeys[i],
        {
          spec: {
            scaffold: 'life-lattice',
            envelope: 'lattice-standard',
            params: { width: SIDE, height: SIDE, rule: 'B3/S23', ticks: TICKS, seed: 1000 + i },
          },
        },
      );
      for (;;) {
        const res = await fetch(`${base}/v1/substrates/deployments/${created.deployment_id}`, {
          headers: { 'X-API-Key': deployKeys[i] },
        });
        const view = ((await res.json()) as { payload: { status: string; stage: string } }).payload;
        if (view.status !== 'running') {
          if (view.status !== 'ready') throw new Error(`deployment ended ${view.stage}`);
          return;
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    };
    const processes = {
      temporal: serverPid(ctx.serversDataDir, 'temporal'),
      ferretdb: serverPid(ctx.serversDataDir, 'ferretdb'),
      ...Object.fromEntries(apis.map((p, i) => [`api${i}`, p.child.pid])),
      ...Object.fromEntries(workers.map((p, i) => [`worker${i}`, p.child.pid])),
      client: process.pid,
    };
    /** CPU per unit summed by process kind (all apis, all workers). */
    const byKind = (cpu: Record<string, number>, unit: string) => {
      const kinds: Record<string, number> = {};
      for (const [name, ms] of Object.entries(cpu)) {
        const kind = name.replace(/\d+$/, '');
        kinds[`cpuMsPer${unit}_${kind}`] = round1((kinds[`cpuMsPer${unit}_${kind}`] ?? 0) + ms);
      }
      return kinds;
    };

    // Warm-up: the first workflows of the queue, JIT, key caches, every api.
    await runConcurrently(2 * topology.apis, topology.apis, lifecycle);
    await deployment(0);

    let actionsWallMs = 0;
    const actionCpu = await cpuMsPerUnit(
      processes,
      () => ACTIONS,
      async () => {
        actionsWallMs = await runConcurrently(ACTIONS, ACTIONS_IN_FLIGHT, lifecycle);
      },
    );
    let deployWallMs = 0;
    const deployCpu = await cpuMsPerUnit(
      processes,
      () => DEPLOYMENTS,
      async () => {
        deployWallMs = await runConcurrently(DEPLOYMENTS, DEPLOYMENTS_IN_FLIGHT, (i) =>
          deployment(i + 1),
        );
      },
    );
    const wallSeconds = (ms: number) => ms / 1000;
    return {
      apis: topology.apis,
      workers: topology.workers,
      cpus: cpus().length,
      actionsPerSecond: round1(ACTIONS / wallSeconds(actionsWallMs)),
      // Busy cores while the actions ran: CPU of every process per second of wall time.
      actionCoresBusy: round2((actionCpu['total'] * ACTIONS) / actionsWallMs),
      ...byKind(actionCpu, 'Action'),
      cellUpdatesPerSecondM: round1(
        (DEPLOYMENTS * SIDE * SIDE * TICKS) / wallSeconds(deployWallMs) / 1e6,
      ),
      deployCoresBusy: round2((deployCpu['total'] * DEPLOYMENTS) / deployWallMs),
      ...byKind(deployCpu, 'Deploy'),
    };
  } finally {
    for (const worker of workers) await worker.stop();
    for (const api of apis) await api.stop();
    await connection.close();
  }
}

const round1 = (n: number): number => Math.round(n * 10) / 10;
const round2 = (n: number): number => Math.round(n * 100) / 100;
