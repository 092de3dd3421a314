import { createHash } from 'node:crypto';
import { EJSON } from 'bson';
import { MongoClient } from 'mongodb';
import { newId } from '../src/lib/ids';
import type { WorldObject } from '../src/store/world-objects.repo';
import { postJson } from './lib/api';
import { startApiAndWorker } from './lib/processes';
import type { BenchContext, BenchReport } from './lib/report';
import { benchPort } from './lib/ports';

const API_PORT = benchPort(18484);
const OBJECTS = Number(process.env['BENCH_CHECKPOINT_OBJECTS'] ?? 100_000);
const TARGET = 0.5;

interface CheckpointView {
  checkpoint_id: string;
  status: string;
  scopes: Record<string, { count: number }>;
  error: string | null;
}

/**
 * Checkpoint throughput (issue 12): the `world` scope of a world of 100,000 objects copied by
 * the checkpoint workflow (api → workflow → activities streaming parts into artifacts →
 * manifest, polled every 100 ms), in objects per second, against a bare
 * `find().toArray()` + sha256 of the same documents' extended JSON in this process.
 * Target: ≥ 0.5× the bare rate.
 */
export async function checkpointBench(ctx: BenchContext): Promise<BenchReport> {
  const servers = await startApiAndWorker({ ...ctx, suite: 'checkpoint', port: API_PORT });
  const { base, key } = servers;
  const client = await MongoClient.connect(servers.mongoUri);
  try {
    const objects = client.db().collection<WorldObject>('world_objects');
    const seedStarted = performance.now();
    const now = new Date().toISOString();
    for (let start = 0; start < OBJECTS; start += 1000) {
      const batch = Array.from({ length: Math.min(1000, OBJECTS - start) }, (_, i) => ({
        _id: newId('obj'),
        kind: 'service',
        name: `service ${start + i}`,
        attributes: {
          tier: (start + i) % 3 === 0 ? 'critical' : 'standard',
          owner: 'ops',
          port: 8000 + (i % 100),
        },
        external_state: {},
        version: 1,
        created_at: now,
        updated_at: now,
      }));
      await objects.insertMany(batch, { ordered: false });
    }
    const seedMs = performance.now() - seedStarted;
    const stored = await objects.countDocuments();

    const bare = async () => {
      const started = performance.now();
      const docs = await objects.find({}).toArray();
      const hash = createHash('sha256');
      for (const doc of docs) hash.update(`${EJSON.stringify(doc, { relaxed: false })}\n`);
      hash.digest('hex');
      return { ms: performance.now() - started, count: docs.length };
    };
    const ours = async () => {
      const started = performance.now();
      const created = await postJson<CheckpointView>(base, '/v1/continuous-ops/checkpoint', key, {
        scope: ['world'],
      });
      for (;;) {
        const res = await fetch(`${base}/v1/continuous-ops/checkpoints/${created.checkpoint_id}`, {
          headers: { 'X-API-Key': key },
        });
        const view = ((await res.json()) as { payload: CheckpointView }).payload;
        if (view.status !== 'running') {
          if (view.status !== 'completed') throw new Error(`checkpoint failed: ${view.error}`);
          return { ms: performance.now() - started, count: view.scopes['world'].count };
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const bareRun = await bare();
    const ourRun = await ours();
    const bareRate = (bareRun.count / bareRun.ms) * 1000;
    const ourRate = (stored / ourRun.ms) * 1000;
    const ratio = Math.round((ourRate / bareRate) * 100) / 100;
    return {
      suite: 'checkpoint',
      description: `Checkpoint of the world scope (${OBJECTS} objects, plus the demo world's relationships and tasks) through the API and workflow vs a bare find().toArray() + sha256 of the same objects`,
      results: {
        ours: {
          ms: Math.round(ourRun.ms),
          documents: ourRun.count,
          objectsPerSecond: Math.round(ourRate),
          workerPeakRssMiB: servers.worker.peakRssMiB(),
        },
        bare: {
          ms: Math.round(bareRun.ms),
          documents: bareRun.count,
          objectsPerSecond: Math.round(bareRate),
        },
      },
      ratios: { throughput: ratio },
      figures: { seedMs: Math.round(seedMs) },
      targets: [{ name: `throughput ≥ ${TARGET}× bare`, met: ratio >= TARGET }],
    };
  } finally {
    await client.close();
    await servers.stop();
  }
}
