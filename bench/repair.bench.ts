import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { connectTemporal } from '../src/temporal/connect';
import { MongoClient } from 'mongodb';
import { newId } from '../src/lib/ids';
import type { WorldHistoryEvent } from '../src/store/world-history.repo';
import type { WorldObject } from '../src/store/world-objects.repo';
import { postJson } from './lib/api';
import { startApiAndWorker, startNodeProcess, type ServerProcess } from './lib/processes';
import type { BenchContext, BenchReport } from './lib/report';
import { percentile, timed } from './lib/stats';
import { benchPort } from './lib/ports';

const API_PORT = benchPort(18485);
const SAMPLES = Number(process.env['BENCH_REPAIR_SAMPLES'] ?? 40);
const WARMUP = 5;
const TARGET = 1.5;

/**
 * Repair end to end (issue 12): `POST /v1/repair/request` (revalidate, an object that needs
 * nothing) until its workflow has ended `no_action_needed` (diagnosis over the object's
 * history and external state, records, ledger entry), against a bare Temporal workflow that
 * runs one activity, both timed from the request to the known result. Samples alternate.
 * Target: p50 ≤ 1.5× bare.
 */
export async function repairBench(ctx: BenchContext): Promise<BenchReport> {
  const servers = await startApiAndWorker({ ...ctx, suite: 'repair', port: API_PORT });
  const connection = await connectTemporal({ address: ctx.temporalAddress });
  const client = new Client({ connection });
  const mongo = await MongoClient.connect(servers.mongoUri);
  const bareQueue = `bench-repair-bare-${randomBytes(3).toString('hex')}`;
  let bareWorker: ServerProcess | undefined;
  try {
    bareWorker = await startNodeProcess(
      join(ctx.distDir, 'bench', 'baseline', 'bare-temporal-worker.js'),
      {
        MONGODB_URI: servers.mongoUri,
        TEMPORAL_ADDRESS: ctx.temporalAddress,
        TEMPORAL_TASK_QUEUE: bareQueue,
      },
      join(ctx.logDir, 'repair-bare-worker.log'),
      async () => {
        const described = await client.workflowService.describeTaskQueue({
          namespace: 'default',
          taskQueue: { name: bareQueue },
          taskQueueType: 1,
        });
        return (described.pollers ?? []).length > 0;
      },
    );
    const objectId = await seedObject(mongo);

    const ours = async () => {
      const repair = await postJson<{ workflow_id: string }>(
        servers.base,
        '/v1/repair/request',
        servers.key,
        { object_id: objectId },
      );
      const final = (await client.workflow.getHandle(repair.workflow_id).result()) as {
        status: string;
      };
      if (final.status !== 'no_action_needed') throw new Error(`repair ended ${final.status}`);
    };
    const bare = async () => {
      await client.workflow.execute('bareOneActivityWorkflow', {
        taskQueue: bareQueue,
        workflowId: `bare-${randomBytes(8).toString('hex')}`,
        args: [randomBytes(8).toString('hex')],
      });
    };
    for (let i = 0; i < WARMUP; i += 1) {
      await ours();
      await bare();
    }
    const ourMs: number[] = [];
    const bareMs: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      ourMs.push((await timed(ours))[1]);
      bareMs.push((await timed(bare))[1]);
    }
    const stats = (values: number[]) => ({
      p50Ms: Math.round(percentile(values, 50) * 10) / 10,
      p99Ms: Math.round(percentile(values, 99) * 10) / 10,
    });
    const ourStats = stats(ourMs);
    const bareStats = stats(bareMs);
    const ratio = Math.round((ourStats.p50Ms / bareStats.p50Ms) * 100) / 100;
    return {
      suite: 'repair',
      description: `Repair end to end (revalidate, no change needed; ${SAMPLES} sequential samples, alternating) over HTTP until the workflow's result, vs a bare Temporal workflow with one activity`,
      results: { ours: ourStats, bare: bareStats },
      ratios: { p50: ratio, p99: Math.round((ourStats.p99Ms / bareStats.p99Ms) * 100) / 100 },
      figures: { samples: SAMPLES },
      targets: [{ name: `end-to-end p50 ≤ ${TARGET}× bare`, met: ratio <= TARGET }],
    };
  } finally {
    await bareWorker?.stop();
    await mongo.close();
    await connection.close();
    await servers.stop();
  }
}

/** One healthy object with its creation event. */
async function seedObject(mongo: MongoClient): Promise<string> {
  const now = new Date().toISOString();
  const object: WorldObject = {
    _id: newId('obj'),
    kind: 'service',
    name: 'bench service',
    attributes: { tier: 'critical', owner: 'ops' },
    external_state: {},
    version: 1,
    created_at: now,
    updated_at: now,
  };
  await mongo.db().collection<WorldObject>('world_objects').insertOne(object);
  await mongo
    .db()
    .collection<WorldHistoryEvent>('world_history')
    .insertOne({
      _id: newId('evt'),
      kind: 'object.created',
      object_id: object._id,
      at: now,
      change: { after: { attributes: object.attributes }, version: 1 },
    });
  return object._id;
}
