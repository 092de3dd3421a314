import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { createWorldRevisionsRepo } from '../src/store/world-revisions.repo';
import { createUnlimitedKey } from './lib/api';
import { cpuSecondsOf, serverPid } from './lib/cpu';
import { startApi } from './lib/processes';
import type { BenchContext } from './lib/report';
import { sampleReads, type ReadSample } from './lib/sample-reads';
import { seedActions } from './lib/seed-actions';
import { seedEvents } from './lib/seed-events';
import { seedWorldObjects } from './lib/seed-world';
import { benchPort } from './lib/ports';

const API_PORT = benchPort(18600);
/** Data at 1×: world objects, actions, events (10× and 100× multiply all three). */
const BASE = { objects: 100, actions: 1_000, events: 10_000 };
/**
 * Most events seeded: 1,000,000 (100×) takes longer to seed than the suite's budget on a
 * 2-core machine (seeding time is mostly the events), so by default the events
 * stop at 100,000 and the larger scales keep that many (the rows say what each held).
 */
const MAX_EVENTS = Number(process.env['BENCH_SCALE_MAX_EVENTS'] ?? 100_000);
const SAMPLES = Number(process.env['BENCH_SCALE_SAMPLES'] ?? 40);
/** Time one route may take per scale before it stops sampling (after 3 samples). */
const BUDGET_MS = Number(process.env['BENCH_SCALE_ROUTE_SECONDS'] ?? 10) * 1000;

/**
 * The reads measured, by name: the path (`{object}`: a seeded object's id), and whether each
 * sample follows a world write.
 */
export const ROUTES: Record<string, { path: string; afterWorldWrite?: boolean }> = {
  'worlds.state (cached)': { path: '/v1/worlds/state' },
  'worlds.state (after a world write)': { path: '/v1/worlds/state', afterWorldWrite: true },
  'actions inbox': { path: '/v1/external-actions?status=awaiting_approval' },
  'events.history': { path: '/v1/external-events/history' },
  'events.history (source_family)': {
    path: '/v1/external-events/history?source_family=bench.scale',
  },
  'events.history (world_object_ref)': {
    path: '/v1/external-events/history?world_object_ref={object}',
  },
  'runtime.self-report': { path: '/v1/runtime/self-report' },
  'shared-context commitments': { path: '/v1/shared-contexts/ctx-7/commitments' },
};

export interface ScaleReads {
  /** Per `<route> @<scale>×`: the read's figures. */
  results: Record<string, ReadSample | Record<string, number>>;
  /** Per route: p50 at the largest scale / p50 at 1×, and the same for CPU per request. */
  growth: Record<string, number>;
  /** Seeding time and the witness index's first read after each scale's seed. */
  figures: Record<string, number | string>;
  scales: number[];
}

/**
 * The read curve (issue 17 item 5): one api on a fresh database, seeded directly (not
 * through workflows) to 1×, 10×, 100× (up to `BENCH_SCALE_MAX`), each read sampled at each
 * scale. The witness reads' first request after a seed folds the new records into the
 * index; it is reported apart (`witness first read`), the samples are the steady state.
 */
export async function scaleReads(ctx: BenchContext, maxScale: number): Promise<ScaleReads> {
  const scales = [1, 10, 100].filter((s) => s <= maxScale);
  const suffix = randomBytes(3).toString('hex');
  const mongoUri = `${ctx.mongoBaseUri}bench_scale_${suffix}`;
  const { api, base, adminKey } = await startApi({
    ...ctx,
    mongoUri,
    port: API_PORT,
    name: 'scale',
  });
  const mongo = await MongoClient.connect(mongoUri);
  const revisions = createWorldRevisionsRepo(mongo.db());
  const results: ScaleReads['results'] = {};
  const figures: ScaleReads['figures'] = {};
  try {
    const headers = { 'X-API-Key': await createUnlimitedKey(base, adminKey) };
    const processes = {
      api: api.child.pid,
      ferretdb: serverPid(ctx.serversDataDir, 'ferretdb'),
    };
    const seeded = { objects: 0, actions: 0, events: 0 };
    const objectIds: string[] = [];
    for (const scale of scales) {
      const started = Date.now();
      const want = {
        objects: BASE.objects * scale,
        actions: BASE.actions * scale,
        events: Math.min(MAX_EVENTS, BASE.events * scale),
      };
      const seconds = (from: number) => Math.round((Date.now() - from) / 100) / 10;
      let t = Date.now();
      objectIds.push(...(await seedWorldObjects(mongoUri, want.objects - seeded.objects)));
      figures[`seed objects to ${want.objects} (s)`] = seconds(t);
      t = Date.now();
      await seedActions(mongoUri, want.actions - seeded.actions);
      figures[`seed actions to ${want.actions} (s)`] = seconds(t);
      t = Date.now();
      await seedEvents(mongoUri, seeded.events, want.events - seeded.events, {
        objects: objectIds,
        reconciled: true,
      });
      figures[`seed events to ${want.events} (s)`] = seconds(t);
      Object.assign(seeded, want);
      figures[`data @${scale}×`] =
        `${want.objects} objects / ${want.actions} actions / ${want.events} events`;
      console.log(
        `scale ${scale}×: seeded ${JSON.stringify(seeded)} in ${Date.now() - started} ms`,
      );

      for (const witness of ['runtime.self-report', 'shared-context commitments']) {
        const cpuBefore = cpuSecondsOf(processes.api);
        const t0 = Date.now();
        const res = await fetch(`${base}${ROUTES[witness].path}`, { headers });
        if (!res.ok) throw new Error(`${witness}: ${res.status}`);
        await res.arrayBuffer();
        figures[`${witness} first read @${scale}× (ms)`] = Date.now() - t0;
        figures[`${witness} first read @${scale}× (api cpu ms)`] = Math.round(
          (cpuSecondsOf(processes.api) - cpuBefore) * 1000,
        );
      }
      for (const [name, route] of Object.entries(ROUTES)) {
        const path = route.path.replace('{object}', objectIds[7]);
        const sample = await sampleReads(`${base}${path}`, headers, processes, {
          samples: SAMPLES,
          budgetMs: BUDGET_MS,
          // A world write as an object's patch reports it: the advance names the object.
          ...(route.afterWorldWrite
            ? {
                before: () =>
                  revisions
                    .advance({ objects: [objectIds[Math.floor(Math.random() * objectIds.length)]] })
                    .then(() => {}),
              }
            : {}),
        });
        results[`${name} @${scale}×`] = sample;
        console.log(`  ${name} @${scale}×: ${JSON.stringify(sample)}`);
      }
    }
    const growth: Record<string, number> = {};
    const top = scales[scales.length - 1];
    if (top > 1) {
      for (const name of Object.keys(ROUTES)) {
        const small = results[`${name} @1×`] as ReadSample;
        const large = results[`${name} @${top}×`] as ReadSample;
        growth[`${name} p50 ${top}×/1×`] = round2(large.p50Ms / small.p50Ms);
        growth[`${name} cpu ${top}×/1×`] = round2(
          Number(large['cpuMs_total']) / Math.max(0.1, Number(small['cpuMs_total'])),
        );
      }
    }
    return { results, growth, figures, scales };
  } finally {
    await api.stop();
    await mongo
      .db()
      .dropDatabase()
      .catch(() => undefined);
    await mongo.close();
  }
}

const round2 = (n: number): number => Math.round(n * 100) / 100;
