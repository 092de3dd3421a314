import { createUnlimitedKey } from './lib/api';
import { startApiAndBare } from './lib/processes';
import type { BenchContext, BenchReport } from './lib/report';
import { seedActions } from './lib/seed-actions';
import { seedEvents } from './lib/seed-events';
import { percentile, timed } from './lib/stats';
import { benchPort } from './lib/ports';

const OURS_PORT = benchPort(18486);
const BARE_PORT = benchPort(18487);
/** Sequential requests to the bare route per measurement: its reads take seconds on FerretDB. */
const SAMPLES = Number(process.env['BENCH_WITNESS_SAMPLES'] ?? 5);
/** Sequential requests to ours per measurement, after one warm-up request. */
const OURS_SAMPLES = Number(process.env['BENCH_WITNESS_OURS_SAMPLES'] ?? 300);
const CONTEXT = 'ctx-7';
/** A context that keeps its size (20 actions, 50 events) while the store grows around it. */
const FIXED_CONTEXT = 'ctx-fixed';

/**
 * Witness reads (issue 13): `GET /v1/runtime/self-report` and
 * `GET /v1/shared-contexts/{id}/commitments` at 2,000 actions / 5,000 events and at 20,000 /
 * 50,000 (100 contexts), against a bare Koa route making the same reads with the driver.
 * Sequential samples (the reads are slow on FerretDB); targets: ≥ 0.5× bare (by p50),
 * p99 ≤ 50 ms, and flat from 2,000 to 20,000 actions. Every seeded context grows with the
 * store (ctx-7: 40 → 400 actions, 50 → 500 events), so a context of its own that does not
 * (20 actions, 50 events) shows what the store's growth alone costs.
 */
export async function witnessesBench(ctx: BenchContext): Promise<BenchReport> {
  const servers = await startApiAndBare({
    ...ctx,
    suite: 'witnesses',
    oursPort: OURS_PORT,
    barePort: BARE_PORT,
  });
  try {
    const key = await createUnlimitedKey(servers.oursUrl, servers.adminKey);
    const sample = async (url: string, headers: Record<string, string> = {}, samples = SAMPLES) => {
      const ms: number[] = [];
      for (let i = 0; i < samples; i += 1) {
        const [res, took] = await timed(() => fetch(url, { headers }));
        if (!res.ok) throw new Error(`${url}: ${res.status}`);
        await res.arrayBuffer();
        ms.push(took);
      }
      return { p50Ms: percentile(ms, 50), p99Ms: percentile(ms, 99), maxMs: percentile(ms, 100) };
    };
    /** Ours after one warm-up read (which folds what was written since the last one). */
    const sampleOurs = async (url: string) => {
      const headers = { 'X-API-Key': key };
      const [, warmUpMs] = await timed(async () => (await fetch(url, { headers })).arrayBuffer());
      return { ...(await sample(url, headers, OURS_SAMPLES)), warmUpMs };
    };
    const measure = async () => ({
      selfReport: await sampleOurs(`${servers.oursUrl}/v1/runtime/self-report`),
      selfReportBare: await sample(`${servers.bareUrl}/self-report-reads`),
      commitments: await sampleOurs(`${servers.oursUrl}/v1/shared-contexts/${CONTEXT}/commitments`),
      commitmentsBare: await sample(`${servers.bareUrl}/context-commitments?context=${CONTEXT}`),
      fixedCommitments: await sampleOurs(
        `${servers.oursUrl}/v1/shared-contexts/${FIXED_CONTEXT}/commitments`,
      ),
    });
    await seedActions(servers.mongoUri, 20, FIXED_CONTEXT);
    await seedEvents(servers.mongoUri, 1_000_000, 50, { context: FIXED_CONTEXT });
    await seedActions(servers.mongoUri, 2_000);
    await seedEvents(servers.mongoUri, 0, 5_000);
    const small = await measure();
    await seedActions(servers.mongoUri, 18_000);
    await seedEvents(servers.mongoUri, 5_000, 45_000);
    const large = await measure();
    const ratio = (bare: { p50Ms: number }, ours: { p50Ms: number }) =>
      Math.round((bare.p50Ms / ours.p50Ms) * 100) / 100;
    const growth = (a: { p50Ms: number }, b: { p50Ms: number }) =>
      Math.round((b.p50Ms / a.p50Ms) * 100) / 100;
    const ratios = {
      selfReport: ratio(large.selfReportBare, large.selfReport),
      commitments: ratio(large.commitmentsBare, large.commitments),
      selfReportGrowth: growth(small.selfReport, large.selfReport),
      commitmentsGrowth: growth(small.commitments, large.commitments),
      fixedContextGrowth: growth(small.fixedCommitments, large.fixedCommitments),
    };
    return {
      suite: 'witnesses',
      description: `Witness reads at 2,000 actions / 5,000 events and at 20,000 / 50,000 (100 contexts; ${OURS_SAMPLES} sequential samples of ours after one warm-up read, ${SAMPLES} of the bare route) vs a bare Koa route making the same reads with the driver`,
      results: {
        'ours self-report @2k': small.selfReport,
        'bare self-report reads @2k': small.selfReportBare,
        'ours self-report @20k': large.selfReport,
        'bare self-report reads @20k': large.selfReportBare,
        'ours commitments @2k': small.commitments,
        'bare commitments @2k': small.commitmentsBare,
        'ours commitments @20k': large.commitments,
        'bare commitments @20k': large.commitmentsBare,
        'ours commitments, fixed-size context @2k': small.fixedCommitments,
        'ours commitments, fixed-size context @20k': large.fixedCommitments,
      },
      ratios,
      figures: {
        bareSamples: SAMPLES,
        oursSamples: OURS_SAMPLES,
        'warm-up self-report @20k (ms)': large.selfReport.warmUpMs,
        'warm-up commitments @20k (ms)': large.commitments.warmUpMs,
      },
      targets: [
        { name: 'self-report ≥ 0.5× bare', met: ratios.selfReport >= 0.5 },
        { name: 'commitments ≥ 0.5× bare', met: ratios.commitments >= 0.5 },
        {
          name: 'p99 ≤ 50 ms at 20k',
          met: large.selfReport.p99Ms <= 50 && large.commitments.p99Ms <= 50,
        },
        {
          // A seeded context holds 10× the records at 20k (its commitments answer grows with
          // it: commitmentsGrowth is reported, not judged); the self-report's does not.
          name: 'self-report flat from 2k to 20k actions (≤ 1.5× growth)',
          met: ratios.selfReportGrowth <= 1.5,
        },
        {
          name: "a fixed-size context's commitments flat as the store grows 10× (≤ 1.5×)",
          met: ratios.fixedContextGrowth <= 1.5,
        },
      ],
    };
  } finally {
    await servers.stop();
  }
}
