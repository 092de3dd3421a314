import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { proposeNotify } from './lib/api';
import { benchPort } from './lib/ports';
import { cpuSecondsOf } from './lib/cpu';
import { startApiAndWorker } from './lib/processes';
import type { BenchContext, BenchReport } from './lib/report';
import { percentile } from './lib/stats';

/** Its own api port (shifted by BENCH_PORT_BASE). */
const PORT = benchPort(18493);
/** Sequential calls per variant and round (the 1,000). */
const REQUESTS = 1_000;
/** Calls of one variant in a row before the other takes its turn (drift hits both alike). */
const BLOCK = 50;

/**
 * Issue 45, Measure: a `get_action` tool call over Streamable HTTP (`/mcp`, the SDK's own
 * client) against the same read as a plain request (`GET /v1/external-actions/{id}` with
 * fetch), in the same run: p50 of 1,000 sequential calls each per round, interleaved in
 * blocks; target ≤ 1.2×.
 */
export async function mcpBench(ctx: BenchContext): Promise<BenchReport> {
  const servers = await startApiAndWorker({ ...ctx, suite: 'mcp', port: PORT });
  const agent = new Client({ name: 'bench-agent', version: '1.0.0' });
  try {
    const actionId = await proposeNotify(servers.base, servers.key, 'mcp bench');
    const url = `${servers.base}/v1/external-actions/${actionId}`;
    const headers = { 'X-API-Key': servers.key };
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${servers.base}/mcp`), {
        requestInit: { headers },
        fetch: withoutSessionSignal,
      }),
    );
    const variants = {
      http: async () => {
        const response = await fetch(url, { headers });
        if (!response.ok) throw new Error(`GET: ${response.status}`);
        return ((await response.json()) as { payload: { action_id: string } }).payload.action_id;
      },
      // The protocol's exchange alone (authenticated /mcp POST, JSON-RPC, the SSE answer),
      // no tool: what get_action costs beyond it is the tool's own work.
      ping: async () => agent.ping(),
      mcp: async () => {
        const result = await agent.callTool({
          name: 'get_action',
          arguments: { action_id: actionId },
        });
        if (result.isError) throw new Error(`get_action: ${JSON.stringify(result.content)}`);
        return (result.structuredContent as { action_id: string }).action_id;
      },
    };
    for (const run of Object.values(variants)) {
      for (let i = 0; i < 300; i += 1) await run(); // warm: JIT, connections, key cache
    }
    const names = ['http', 'ping', 'mcp'] as const;
    const samples = { http: [] as number[], ping: [] as number[], mcp: [] as number[] };
    const roundP50 = { http: [] as number[], ping: [] as number[], mcp: [] as number[] };
    // CPU seconds each variant's blocks used, in the api and in this (the client) process:
    // less shaken by the shared machine's load than the wall clock.
    const cpu = { http: [0, 0], ping: [0, 0], mcp: [0, 0] };
    const apiPid = servers.api.child.pid;
    for (let round = 0; round < ctx.rounds; round += 1) {
      const mine = { http: [] as number[], ping: [] as number[], mcp: [] as number[] };
      for (let block = 0; block < REQUESTS / BLOCK; block += 1) {
        // Alternate which goes first, so neither always follows the other's garbage.
        const order = block % 2 === 0 ? names : [...names].reverse();
        for (const name of order) {
          const api = cpuSecondsOf(apiPid);
          const client = process.cpuUsage();
          for (let i = 0; i < BLOCK; i += 1) mine[name].push(await microseconds(variants[name]));
          cpu[name][0] += cpuSecondsOf(apiPid) - api;
          const used = process.cpuUsage(client);
          cpu[name][1] += (used.user + used.system) / 1e6;
        }
      }
      for (const name of names) {
        samples[name].push(...mine[name]);
        roundP50[name].push(percentile(mine[name], 50));
      }
    }
    const p50 = {
      http: percentile(samples.http, 50),
      ping: percentile(samples.ping, 50),
      mcp: percentile(samples.mcp, 50),
    };
    const p99 = {
      http: percentile(samples.http, 99),
      ping: percentile(samples.ping, 99),
      mcp: percentile(samples.mcp, 99),
    };
    const ratio = round2(p50.mcp / p50.http);
    const calls = REQUESTS * ctx.rounds;
    const cpuUs = (name: keyof typeof cpu) => ({
      apiCpuUs: round2((cpu[name][0] * 1e6) / calls),
      clientCpuUs: round2((cpu[name][1] * 1e6) / calls),
    });
    return {
      suite: 'mcp',
      description: `Reading one action: the \`get_action\` tool over Streamable HTTP (\`/mcp\`, the MCP SDK's client) vs \`GET /v1/external-actions/{id}\` with fetch, and \`ping\` over \`/mcp\` (the protocol's exchange without a tool), ${REQUESTS} sequential calls each per round (blocks of ${BLOCK}, interleaved), µs; CPU per call in the api and the client process (read per block, /proc's 10 ms ticks for the api)`,
      results: {
        'GET /v1/external-actions/{id}': {
          p50Us: p50.http,
          p99Us: p99.http,
          ...perRound(roundP50.http),
          ...cpuUs('http'),
        },
        'ping over /mcp (no tool)': {
          p50Us: p50.ping,
          p99Us: p99.ping,
          ...perRound(roundP50.ping),
          ...cpuUs('ping'),
        },
        'get_action over /mcp': {
          p50Us: p50.mcp,
          p99Us: p99.mcp,
          ...perRound(roundP50.mcp),
          ...cpuUs('mcp'),
        },
      },
      ratios: { mcpP50: ratio },
      figures: {
        mcpOverheadUs: round2(p50.mcp - p50.http),
        toolWorkBeyondPingUs: round2(p50.mcp - p50.ping),
        mcpOverheadCpuUs: round2(
          ((cpu.mcp[0] + cpu.mcp[1] - cpu.http[0] - cpu.http[1]) * 1e6) / calls,
        ),
      },
      targets: [{ name: 'get_action p50 ≤ 1.2× the HTTP request', met: ratio <= 1.2 }],
    };
  } finally {
    await agent.close().catch(() => undefined);
    await servers.stop();
  }
}

/**
 * The SDK's client hands every POST the session's one AbortSignal; fetch follows it with a
 * listener it drops only when that request is garbage-collected, so in this loop thousands
 * pile up on the signal between collections and each new request's listener walks them
 * (Node checks an EventTarget's listeners for duplicates). The cost grows with the calls
 * made since the last collection, not with a call, and the GET variant has no signal to
 * pay it on: the POSTs go without it (nothing here aborts a call), the session's GET stream
 * keeps it.
 */
const withoutSessionSignal = (url: string | URL, init?: RequestInit): Promise<Response> =>
  fetch(url, init?.method === 'POST' ? { ...init, signal: undefined } : init);

async function microseconds(step: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await step();
  return Number(process.hrtime.bigint() - started) / 1e3;
}

const perRound = (values: number[]) =>
  Object.fromEntries(values.map((value, i) => [`round${i + 1}P50Us`, value]));

const round2 = (n: number): number => Math.round(n * 100) / 100;
