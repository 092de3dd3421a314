import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import stringify from 'safe-stable-stringify';
import { mintApiKey } from '../src/auth/api-key';
import { eventKey } from '../src/domain/events/events.service';
import { newId } from '../src/lib/ids';
import { createUnlimitedKey } from './lib/api';
import { startNodeServer, type ServerProcess } from './lib/processes';
import type { BenchContext, BenchReport } from './lib/report';
import { percentile } from './lib/stats';

const API_PORT = 18486;
const BATCH = 500;
/** World objects the events are about (round robin, so every batch reaches all of them). */
const OBJECTS = Number(process.env['BENCH_EVENT_OBJECTS'] ?? 20);
const STATUSES = ['up', 'degraded', 'down'];

type Round = {
  eventsPerSecond: number;
  batchP50Ms: number;
  batchP99Ms: number;
  events: number;
  errors: number;
};

/**
 * Events: `POST /v1/external-events/ingest-batch` of 500-event batches through our api
 * (validation, dedup claims, reconciliation into the objects' external state with revision
 * commits, world history and reconciliation records) against a bare `insertMany` of the
 * same event documents into the same FerretDB, both with `ctx.connections` batches in
 * flight. Target: ≥ 0.5× the bare events/s.
 */
export async function eventsBench(ctx: BenchContext): Promise<BenchReport> {
  const suffix = randomBytes(3).toString('hex');
  const mongoUri = `${ctx.mongoBaseUri}bench_events_${suffix}`;
  const adminKey = mintApiKey(randomBytes(6).toString('hex'));
  const servers: ServerProcess[] = [];
  const mongo = await MongoClient.connect(mongoUri, { maxPoolSize: 50 });
  try {
    const api = await startNodeServer(
      join(ctx.distDir, 'src', 'main.js'),
      {
        PORT: String(API_PORT),
        MONGODB_URI: mongoUri,
        TEMPORAL_ADDRESS: ctx.temporalAddress,
        KEY_PEPPER: randomBytes(32).toString('hex'),
        ADMIN_API_KEY: adminKey,
        LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
      },
      join(ctx.logDir, 'events-api.log'),
      `http://127.0.0.1:${API_PORT}/healthz`,
    );
    servers.push(api);
    const base = `http://127.0.0.1:${API_PORT}`;
    const apiKey = await createUnlimitedKey(base, adminKey);
    const db = mongo.db();
    const now = new Date().toISOString();
    const objectIds = Array.from({ length: OBJECTS }, () => newId('obj'));
    await db.collection<{ _id: string }>('world_objects').insertMany(
      objectIds.map((_id, i) => ({
        _id,
        kind: 'service',
        name: `bench service ${i}`,
        attributes: {},
        external_state: {},
        version: 1,
        created_at: now,
        updated_at: now,
      })),
    );
    const bare = db.collection<{ _id: string }>('bare_external_events');

    let sequence = 0;
    const started = Date.UTC(2025, 0, 1);
    const makeBatch = () =>
      Array.from({ length: BATCH }, () => {
        const n = sequence++;
        return {
          source_family: 'bench.monitoring',
          source_event_id: `${suffix}-${n}`,
          event_type: 'service.status_changed',
          occurred_at: new Date(started + n).toISOString(),
          world_object_ref: objectIds[n % OBJECTS],
          payload: { status: STATUSES[n % 3], latency_ms: n % 1000, seq: n },
        };
      });
    /** The documents our api stores for a batch, built the same way. */
    const asRecords = (batch: ReturnType<typeof makeBatch>) => {
      const receivedAt = new Date().toISOString();
      return batch.map((e) => ({
        _id: eventKey(e.source_family, e.source_event_id),
        event_id: newId('evt'),
        ...e,
        received_at: receivedAt,
        shared_context_id: null,
        payload_sha256: createHash('sha256')
          .update(stringify(e.payload) ?? '{}')
          .digest('hex'),
      }));
    };

    /** Newest sequence number the api accepted, per object index. */
    const newestSent = new Map<number, number>();
    const oursBatch = async (): Promise<number> => {
      const events = makeBatch();
      const res = await fetch(`${base}/v1/external-events/ingest-batch`, {
        method: 'POST',
        headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ events }),
      });
      if (res.status !== 200) throw new Error(`ingest-batch: ${res.status} ${await res.text()}`);
      const payload = ((await res.json()) as { payload: { created: number } }).payload;
      if (payload.created !== BATCH) throw new Error(`created ${payload.created} of ${BATCH}`);
      for (const e of events) {
        const index = e.payload.seq % OBJECTS;
        newestSent.set(index, Math.max(newestSent.get(index) ?? -1, e.payload.seq));
      }
      return BATCH;
    };
    const bareBatch = async (): Promise<number> => {
      await bare.insertMany(asRecords(makeBatch()), { ordered: false });
      return BATCH;
    };

    const measure = async (step: () => Promise<number>, seconds: number): Promise<Round> => {
      const latencies: number[] = [];
      let events = 0;
      let errors = 0;
      const t0 = process.hrtime.bigint();
      const deadline = Date.now() + seconds * 1000;
      await Promise.all(
        Array.from({ length: ctx.connections }, async () => {
          while (Date.now() < deadline) {
            const s = process.hrtime.bigint();
            try {
              const done = await step(); // not `events += await ...`: that reads `events` first
              events += done;
            } catch (error) {
              errors += 1;
              if (errors === 1) console.error(error);
            }
            latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
          }
        }),
      );
      const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
      return {
        eventsPerSecond: Math.round((events / wallMs) * 1000),
        batchP50Ms: percentile(latencies, 50),
        batchP99Ms: percentile(latencies, 99),
        events,
        errors,
      };
    };

    await measure(bareBatch, ctx.warmupSeconds);
    await measure(oursBatch, ctx.warmupSeconds);
    const oursRounds: Round[] = [];
    const bareRounds: Round[] = [];
    for (let round = 0; round < ctx.rounds; round += 1) {
      bareRounds.push(await measure(bareBatch, ctx.durationSeconds));
      oursRounds.push(await measure(oursBatch, ctx.durationSeconds));
    }
    const ours = meanRound(oursRounds);
    const bareMean = meanRound(bareRounds);
    const ratio = Math.round((ours.eventsPerSecond / bareMean.eventsPerSecond) * 100) / 100;

    // Every object holds the newest event the api accepted for it (event n is about object n % OBJECTS).
    const states = await db
      .collection<{ _id: string; external_state: { fields?: { seq?: number } } }>('world_objects')
      .find({ _id: { $in: objectIds } })
      .toArray();
    const newestOk =
      states.length === OBJECTS &&
      states.every(
        (object) =>
          object.external_state.fields?.seq === newestSent.get(objectIds.indexOf(object._id)),
      );
    return {
      suite: 'events',
      description: `POST /v1/external-events/ingest-batch (${BATCH} events, ${OBJECTS} objects, ${ctx.connections} batches in flight) vs bare insertMany of the same documents`,
      results: {
        ours: { ...ours, peakRssMiB: api.peakRssMiB() },
        bare: bareMean,
      },
      ratios: { throughput: ratio },
      targets: [
        { name: 'events/s ≥ 0.5× bare insertMany', met: ratio >= 0.5 },
        { name: 'every object holds its newest event', met: newestOk },
        { name: 'no errors', met: ours.errors + bareMean.errors === 0 },
      ],
    };
  } finally {
    for (const server of servers) await server.stop();
    await mongo
      .db()
      .dropDatabase()
      .catch(() => undefined);
    await mongo.close();
  }
}

function meanRound(rounds: Round[]): Round {
  const mean = (pick: (r: Round) => number) =>
    Math.round((rounds.reduce((sum, r) => sum + pick(r), 0) / rounds.length) * 10) / 10;
  return {
    eventsPerSecond: mean((r) => r.eventsPerSecond),
    batchP50Ms: mean((r) => r.batchP50Ms),
    batchP99Ms: mean((r) => r.batchP99Ms),
    events: rounds.reduce((sum, r) => sum + r.events, 0),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
  };
}
