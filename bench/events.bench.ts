import { createHash, randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import stringify from 'safe-stable-stringify';
import { eventKey } from '../src/domain/external-events/external-events.service';
import { newId } from '../src/lib/ids';
import { createUnlimitedKey, mongoCommands } from './lib/api';
import { cpuMsPerUnit, serverPid } from './lib/cpu';
import { startApi, type ServerProcess } from './lib/processes';
import type { BenchContext, BenchReport } from './lib/report';
import { percentile } from './lib/stats';
import { benchPort } from './lib/ports';

const API_PORT = benchPort(18486);
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
  /** CPU ms per 1,000 events, per process (`cpuMs_<process>`; see `cpuMsPerUnit`). */
  [cpu: `cpuMs_${string}`]: number;
};

/**
 * Events: `POST /v1/external-events/ingest-batch` of 500-event batches through our api
 * (validation, dedup claims, reconciliation into the objects' external state with revision
 * commits, world history and reconciliation records) against a bare `insertMany` of the
 * same event documents into the same FerretDB, both with `ctx.connections` batches in
 * flight. Target: ≥ 0.75× the bare events/s (issue 17). Each round also reports the CPU
 * ms per 1,000 events of every process involved, and ours the database commands per batch.
 */
export async function eventsBench(ctx: BenchContext): Promise<BenchReport> {
  const suffix = randomBytes(3).toString('hex');
  const mongoUri = `${ctx.mongoBaseUri}bench_events_${suffix}`;
  const servers: ServerProcess[] = [];
  const mongo = await MongoClient.connect(mongoUri, { maxPoolSize: 50 });
  try {
    const { api, base, adminKey } = await startApi({
      ...ctx,
      mongoUri,
      port: API_PORT,
      name: 'events',
    });
    servers.push(api);
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

    // Where the CPU goes: the bench process itself is the bare path's client.
    const ferretdb = serverPid(ctx.serversDataDir, 'ferretdb');
    const oursProcesses = { api: api.child.pid, ferretdb, client: process.pid };
    const bareProcesses = { ferretdb, client: process.pid };

    const measure = async (
      step: () => Promise<number>,
      seconds: number,
      processes: Record<string, number | undefined>,
    ): Promise<Round> => {
      const latencies: number[] = [];
      let events = 0;
      let errors = 0;
      let wallMs = 0;
      const cpu = await cpuMsPerUnit(
        processes,
        () => events / 1000,
        async () => {
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
          wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
        },
      );
      return {
        eventsPerSecond: Math.round((events / wallMs) * 1000),
        batchP50Ms: percentile(latencies, 50),
        batchP99Ms: percentile(latencies, 99),
        events,
        errors,
        ...Object.fromEntries(Object.entries(cpu).map(([name, ms]) => [`cpuMs_${name}`, ms])),
      };
    };

    await measure(bareBatch, ctx.warmupSeconds, bareProcesses);
    await measure(oursBatch, ctx.warmupSeconds, oursProcesses);
    const oursRounds: Round[] = [];
    const bareRounds: Round[] = [];
    let oursCommands = 0;
    for (let round = 0; round < ctx.rounds; round += 1) {
      bareRounds.push(await measure(bareBatch, ctx.durationSeconds, bareProcesses));
      const before = await mongoCommands(base, adminKey);
      oursRounds.push(await measure(oursBatch, ctx.durationSeconds, oursProcesses));
      oursCommands += (await mongoCommands(base, adminKey)) - before;
    }
    const ours = meanRound(oursRounds);
    const bareMean = meanRound(bareRounds);
    // The bare path sends one insertMany per batch.
    const dbCommandsPerBatch = Math.round((oursCommands / (ours.events / BATCH)) * 10) / 10;
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
      description: `POST /v1/external-events/ingest-batch (${BATCH} events, ${OBJECTS} objects, ${ctx.connections} batches in flight) vs bare insertMany of the same documents; cpuMs_<process>: CPU ms per 1,000 events`,
      results: {
        ours: { ...ours, peakRssMiB: api.peakRssMiB(), dbCommandsPerBatch },
        bare: { ...bareMean, dbCommandsPerBatch: 1 },
      },
      ratios: { throughput: ratio },
      targets: [
        { name: 'events/s ≥ 0.75× bare insertMany', met: ratio >= 0.75 },
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
  const cpuKeys = Object.keys(rounds[0] ?? {}).filter((k) => k.startsWith('cpuMs_'));
  return {
    eventsPerSecond: mean((r) => r.eventsPerSecond),
    batchP50Ms: mean((r) => r.batchP50Ms),
    batchP99Ms: mean((r) => r.batchP99Ms),
    events: rounds.reduce((sum, r) => sum + r.events, 0),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    ...Object.fromEntries(cpuKeys.map((k) => [k, mean((r) => r[k as `cpuMs_${string}`] ?? 0)])),
  };
}
