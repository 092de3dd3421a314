import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { createClient } from '../packages/client/src';
import { proposeNotify } from './lib/api';
import { startApiAndWorker } from './lib/processes';
import type { BenchContext, BenchReport } from './lib/report';
import { percentile } from './lib/stats';
import { benchPort } from './lib/ports';

/** Its own api port (shifted by BENCH_PORT_BASE). */
const PORT = benchPort(18491);
/** Sequential requests per variant and round (the 1,000). */
const REQUESTS = 1_000;
/** Requests of one variant in a row before the other takes its turn (drift hits both alike). */
const BLOCK = 50;
/** `gr` invocations per variant and round: each is a whole process. */
const INVOCATIONS = 30;

/**
 * Issue 32, Measure: the typed client and the `gr` CLI against `fetch` with a hand-built
 * request, reading one action (`GET /v1/external-actions/{id}`). The client: p50 of 1,000
 * sequential requests per round, interleaved in blocks with bare fetch; target ≤ 1.05×.
 * The CLI: p50 of whole `gr actions show ID --json` processes against a `node -e` process
 * doing the same fetch and printing it (the CLI's cost is its start, not its request).
 */
export async function clientBench(ctx: BenchContext): Promise<BenchReport> {
  const servers = await startApiAndWorker({ ...ctx, suite: 'client', port: PORT });
  try {
    const actionId = await proposeNotify(servers.base, servers.key, 'client bench');
    const url = `${servers.base}/v1/external-actions/${actionId}`;
    const headers = { 'X-API-Key': servers.key };
    const client = createClient({ baseUrl: servers.base, apiKey: servers.key });
    const variants = {
      fetch: async () => {
        const response = await fetch(url, { headers });
        if (!response.ok) throw new Error(`fetch: ${response.status}`);
        return ((await response.json()) as { payload: { action_id: string } }).payload.action_id;
      },
      client: async () => {
        const { data } = await client.GET('/v1/external-actions/{action_id}', {
          params: { path: { action_id: actionId } },
        });
        return data!.payload.action_id;
      },
    };
    for (const run of Object.values(variants)) {
      for (let i = 0; i < 300; i += 1) await run(); // warm: JIT, connections, key cache
    }
    const samples = { fetch: [] as number[], client: [] as number[] };
    const roundP50 = { fetch: [] as number[], client: [] as number[] };
    for (let round = 0; round < ctx.rounds; round += 1) {
      const mine = { fetch: [] as number[], client: [] as number[] };
      for (let block = 0; block < REQUESTS / BLOCK; block += 1) {
        // Alternate which goes first, so neither always follows the other's garbage.
        const order =
          block % 2 === 0 ? (['fetch', 'client'] as const) : (['client', 'fetch'] as const);
        for (const name of order) {
          for (let i = 0; i < BLOCK; i += 1) mine[name].push(await microseconds(variants[name]));
        }
      }
      for (const name of ['fetch', 'client'] as const) {
        samples[name].push(...mine[name]);
        roundP50[name].push(percentile(mine[name], 50));
      }
    }

    const gr = join(ctx.distDir, '..', 'packages', 'client', 'dist', 'cli', 'main.js');
    const grEnv = { GR_URL: servers.base, GR_API_KEY: servers.key, XDG_CONFIG_HOME: ctx.logDir };
    const handMade = `fetch(${JSON.stringify(url)}, { headers: ${JSON.stringify(headers)} }).then((r) => r.json()).then((b) => console.log(JSON.stringify(b.payload, null, 2)))`;
    const processes = { fetch: [] as number[], cli: [] as number[] };
    for (let i = 0; i < INVOCATIONS * ctx.rounds; i += 1) {
      processes.fetch.push(await processMs(['-e', handMade], {}));
      processes.cli.push(await processMs([gr, 'actions', 'show', actionId, '--json'], grEnv));
    }

    const p50 = { fetch: percentile(samples.fetch, 50), client: percentile(samples.client, 50) };
    const p99 = { fetch: percentile(samples.fetch, 99), client: percentile(samples.client, 99) };
    const cliP50 = { fetch: percentile(processes.fetch, 50), cli: percentile(processes.cli, 50) };
    const clientRatio = round2(p50.client / p50.fetch);
    const cliRatio = round2(cliP50.cli / cliP50.fetch);
    return {
      suite: 'client',
      description: `GET /v1/external-actions/{id}: the typed client vs fetch with a hand-built request, ${REQUESTS} sequential requests each per round (blocks of ${BLOCK}, interleaved), µs; and whole processes: \`gr actions show ID --json\` vs \`node -e\` doing the same fetch, ${INVOCATIONS} each per round, ms`,
      results: {
        fetch: { p50Us: p50.fetch, p99Us: p99.fetch, ...perRound(roundP50.fetch) },
        client: { p50Us: p50.client, p99Us: p99.client, ...perRound(roundP50.client) },
      },
      sections: [
        {
          title: 'Whole processes (ms)',
          results: {
            'node -e fetch': { p50Ms: cliP50.fetch, p90Ms: percentile(processes.fetch, 90) },
            'gr actions show --json': { p50Ms: cliP50.cli, p90Ms: percentile(processes.cli, 90) },
          },
        },
      ],
      ratios: { clientP50: clientRatio, cliProcessP50: cliRatio },
      figures: {
        clientOverheadUs: round2(p50.client - p50.fetch),
        cliOverheadMs: round2(cliP50.cli - cliP50.fetch),
      },
      targets: [{ name: 'client p50 ≤ 1.05× fetch', met: clientRatio <= 1.05 }],
    };
  } finally {
    await servers.stop();
  }
}

async function microseconds(step: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await step();
  return Number(process.hrtime.bigint() - started) / 1e3;
}

function processMs(args: string[], env: Record<string, string>): Promise<number> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { env: { PATH: process.env['PATH'] ?? '', ...env } },
      (error) => {
        if (error) return reject(new Error(`${args.join(' ')}: ${error.message}`));
        resolve(Number(process.hrtime.bigint() - started) / 1e6);
      },
    );
  });
}

const perRound = (values: number[]) =>
  Object.fromEntries(values.map((value, i) => [`round${i + 1}P50Us`, value]));

const round2 = (n: number): number => Math.round(n * 100) / 100;
