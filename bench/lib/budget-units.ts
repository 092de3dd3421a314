import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import { mintApiKey } from '../../src/auth/api-key';
import { newId } from '../../src/lib/ids';
import { actionWorkflowId } from '../../src/workflows/external-action.contract';
import { goUpdate, readyUpdate } from '../baseline/bare-action.workflow';
import { approveAndExecute, createUnlimitedKey, proposeNotify } from './api';
import { startNodeProcess, startNodeServer, type ServerProcess } from './processes';
import type { BenchContext } from './report';

/** One unit of work the budget measures: run it once, sequentially, `i` being its number. */
export interface Unit {
  name: string;
  /** The roots (server spans) of the unit's traces: `POST /v1/external-actions/…`. */
  roots: RegExp;
  /** The workflow id of the execution behind run `i`'s result, when the unit has one. */
  workflowOf?: (result: unknown) => string;
  run(i: number): Promise<unknown>;
}

/** The events suite's batch: 500 events about 20 world objects in turn. */
export const INGEST_BATCH = 500;
const INGEST_OBJECTS = 20;
const STATUSES = ['up', 'degraded', 'down'];

/** What both passes share: one database (seeded once), its task queues and keys' secrets. */
export interface BudgetWorld {
  mongoUri: string;
  ourQueue: string;
  bareQueue: string;
  pepper: string;
  adminKey: string;
  objectIds: string[];
}

export function budgetWorld(ctx: BenchContext): BudgetWorld {
  const suffix = randomBytes(3).toString('hex');
  return {
    mongoUri: `${ctx.mongoBaseUri}bench_budget_${suffix}`,
    ourQueue: `bench-budget-${suffix}`,
    bareQueue: `bench-budget-bare-${suffix}`,
    pepper: randomBytes(32).toString('hex'),
    adminKey: mintApiKey(randomBytes(6).toString('hex')),
    objectIds: Array.from({ length: INGEST_OBJECTS }, () => newId('obj')),
  };
}

/** The ingest batch's world objects, as the events suite writes them. */
export async function seedIngestObjects(world: BudgetWorld): Promise<void> {
  const mongo = await MongoClient.connect(world.mongoUri);
  try {
    const now = new Date().toISOString();
    await mongo
      .db()
      .collection<{ _id: string }>('world_objects')
      .insertMany(
        world.objectIds.map((_id, i) => ({
          _id,
          kind: 'service',
          name: `budget service ${i}`,
          attributes: {},
          external_state: {},
          version: 1,
          created_at: now,
          updated_at: now,
        })),
      );
  } finally {
    await mongo.close();
  }
}

/** A running api + worker (and, if asked, the bare Temporal worker) on the world's database. */
export interface BudgetStack {
  api: ServerProcess;
  worker: ServerProcess;
  bareWorker?: ServerProcess;
  base: string;
  proposer: string;
  approver: string;
  stop(): Promise<void>;
}

/** Starts the stack; `extraEnv` carries the tracing variables of a traced pass. */
export async function startBudgetStack(
  ctx: BenchContext,
  world: BudgetWorld,
  options: {
    port: number;
    client: Client;
    withBare: boolean;
    extraEnv: Record<string, string>;
    name: string;
  },
): Promise<BudgetStack> {
  const started: ServerProcess[] = [];
  const pollersOn = (taskQueue: string) => async () => {
    const described = await options.client.workflowService.describeTaskQueue({
      namespace: 'default',
      taskQueue: { name: taskQueue },
      taskQueueType: 1,
    });
    return (described.pollers ?? []).length > 0;
  };
  const env = {
    ...options.extraEnv,
    MONGODB_URI: world.mongoUri,
    TEMPORAL_ADDRESS: ctx.temporalAddress,
    TEMPORAL_TASK_QUEUE: world.ourQueue,
    KEY_PEPPER: world.pepper,
    ADMIN_API_KEY: world.adminKey,
    LOG_LEVEL: 'warn',
  };
  const base = `http://127.0.0.1:${options.port}`;
  try {
    const worker = await startNodeProcess(
      join(ctx.distDir, 'src', 'worker.js'),
      env,
      join(ctx.logDir, `${options.name}-worker.log`),
      pollersOn(world.ourQueue),
    );
    started.push(worker);
    const api = await startNodeServer(
      join(ctx.distDir, 'src', 'main.js'),
      { ...env, PORT: String(options.port) },
      join(ctx.logDir, `${options.name}-api.log`),
      `${base}/healthz`,
    );
    started.push(api);
    let bareWorker: ServerProcess | undefined;
    if (options.withBare) {
      bareWorker = await startNodeProcess(
        join(ctx.distDir, 'bench', 'baseline', 'bare-temporal-worker.js'),
        {
          MONGODB_URI: world.mongoUri,
          TEMPORAL_ADDRESS: ctx.temporalAddress,
          TEMPORAL_TASK_QUEUE: world.bareQueue,
        },
        join(ctx.logDir, `${options.name}-bare-worker.log`),
        pollersOn(world.bareQueue),
      );
      started.push(bareWorker);
    }
    const proposer = await createUnlimitedKey(base, world.adminKey);
    const approver = await createUnlimitedKey(base, world.adminKey);
    return {
      api,
      worker,
      ...(bareWorker ? { bareWorker } : {}),
      base,
      proposer,
      approver,
      // The api first: its last traces' spans are flushed as it stops, then the worker's.
      async stop() {
        for (const process of [api, worker, bareWorker]) await process?.stop();
      },
    };
  } catch (error) {
    for (const process of started.reverse()) await process.stop();
    throw error;
  }
}

/** The four units of our api, and the bare Temporal action, on a running stack. */
export function budgetUnits(stack: BudgetStack, world: BudgetWorld, client: Client) {
  const get = async (path: string) => {
    const res = await fetch(`${stack.base}${path}`, { headers: { 'X-API-Key': stack.proposer } });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  let sequence = 0;
  const batchId = randomBytes(3).toString('hex');
  const action: Unit = {
    name: 'action',
    roots: /^POST \/v1\/external-actions\//,
    workflowOf: (id) => actionWorkflowId(String(id)),
    async run(i) {
      const id = await proposeNotify(stack.base, stack.proposer, `budget ${i}`);
      await approveAndExecute(stack.base, stack.approver, id);
      return id;
    },
  };
  const bareAction: Unit = {
    name: 'action (bare Temporal)',
    roots: /^$/,
    workflowOf: (id) => String(id),
    async run() {
      const id = `bare-${randomBytes(8).toString('hex')}`;
      const handle = await client.workflow.start('bareActionWorkflow', {
        taskQueue: world.bareQueue,
        workflowId: id,
        args: [id],
      });
      await handle.executeUpdate(readyUpdate);
      await handle.executeUpdate(goUpdate);
      await handle.result();
      return id;
    },
  };
  const status: Unit = {
    name: 'GET /v1/runtime/status',
    roots: /^GET \/v1\/runtime\/status$/,
    run: () => get('/v1/runtime/status'),
  };
  const inbox: Unit = {
    name: 'inbox page',
    roots: /^GET \/v1\/external-actions$/,
    run: () => get('/v1/external-actions?status=awaiting_approval'),
  };
  const ingest: Unit = {
    name: `ingest batch (${INGEST_BATCH} events)`,
    roots: /ingest-batch$/,
    async run() {
      const events = Array.from({ length: INGEST_BATCH }, () => {
        const n = sequence++;
        return {
          source_family: 'bench.monitoring',
          source_event_id: `${batchId}-${n}`,
          event_type: 'service.status_changed',
          occurred_at: new Date(Date.UTC(2025, 0, 1) + n).toISOString(),
          world_object_ref: world.objectIds[n % INGEST_OBJECTS],
          payload: { status: STATUSES[n % 3], latency_ms: n % 1000, seq: n },
        };
      });
      const res = await fetch(`${stack.base}/v1/external-events/ingest-batch`, {
        method: 'POST',
        headers: { 'X-API-Key': stack.proposer, 'Content-Type': 'application/json' },
        body: JSON.stringify({ events }),
      });
      if (res.status !== 200) throw new Error(`ingest-batch: ${res.status} ${await res.text()}`);
      const payload = ((await res.json()) as { payload: { created: number } }).payload;
      if (payload.created !== INGEST_BATCH) throw new Error(`created ${payload.created}`);
    },
  };
  return { action, bareAction, status, inbox, ingest };
}

/** MongoDB commands the api has sent so far, by command name, from its own metrics. */
export async function apiCommandCounts(
  base: string,
  adminKey: string,
): Promise<Record<string, number>> {
  return commandCountsAt(`${base}/metrics`, { 'X-API-Key': adminKey });
}

/** MongoDB commands a process has sent so far, by command name, from its metrics at `url`. */
export async function commandCountsAt(
  url: string,
  headers: Record<string, string> = {},
): Promise<Record<string, number>> {
  const res = await fetch(url, { headers });
  const counts: Record<string, number> = {};
  for (const match of (await res.text()).matchAll(
    /^gr_mongodb_commands_total\{[^}]*command="([^"]*)"[^}]*\} (\d+(?:\.\d+)?)$/gm,
  )) {
    counts[match[1]] = Number(match[2]);
  }
  return counts;
}
