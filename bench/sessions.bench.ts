import { createUnlimitedKey, mongoCommands, postJson } from './lib/api';
import { cpuMsPerUnit, serverPid } from './lib/cpu';
import { meanOf, runLoad, type LoadResult } from './lib/load';
import { startApiAndBare } from './lib/processes';
import type { BenchContext, BenchReport } from './lib/report';
import { benchPort } from './lib/ports';

const OURS_PORT = benchPort(18483);
const BARE_PORT = benchPort(18484);
/** Notes each session holds before the measurement, so `recall` returns something. */
const NOTES_PER_SESSION = 3;

/**
 * One autocannon run of `POST .../step`, the requests spread round robin over the sessions
 * (autocannon keeps no per-connection state across requests, so a connection cannot own one
 * session; two requests meeting on a session queue in the api, as an agent's would).
 */
function runSteps(
  baseUrl: string,
  apiKey: string,
  sessions: string[],
  command: string,
  connections: number,
  durationSeconds: number,
): Promise<LoadResult> {
  let next = 0;
  return runLoad({
    url: baseUrl,
    connections,
    durationSeconds,
    requests: [
      {
        method: 'POST',
        headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ input_packet: { command, args: {} } }),
        setupRequest: (request) => ({
          ...request,
          path: `/v1/sessions/${sessions[next++ % sessions.length]}/step`,
        }),
      },
    ],
  });
}

/**
 * Sessions: our authenticated `POST /v1/sessions/{id}/step` (`recall` in `preserve` mode:
 * auth, family guard, rate limit, body and argument validation, the step claimed and recorded
 * by one insert, the notes recalled from the process cache, envelope, request log and ledger)
 * against the bare Koa route of the foundation baseline (one read of the runtime document,
 * no middleware), over as many sessions as connections, and `list_objects` (the demo world's
 * objects, cached per world revision, plus the insert). Targets: ≥ 0.6× the bare throughput
 * for `recall`, ≥ 0.7× for `list_objects` (issue 17). Each run also reports the CPU µs per
 * request of every process involved and our database commands per request.
 */
export async function sessionsBench(ctx: BenchContext): Promise<BenchReport> {
  const servers = await startApiAndBare({
    ...ctx,
    suite: 'sessions',
    oursPort: OURS_PORT,
    barePort: BARE_PORT,
  });
  const { ours, bare, adminKey } = servers;
  try {
    const { oursUrl } = servers;
    const apiKey = await createUnlimitedKey(oursUrl, adminKey);
    const sessions: string[] = [];
    for (let i = 0; i < ctx.connections; i += 1) {
      const session = await postJson<{ session_id: string }>(oursUrl, '/v1/sessions', apiKey, {
        continuity_mode: 'preserve',
      });
      for (let n = 0; n < NOTES_PER_SESSION; n += 1) {
        await postJson(oursUrl, `/v1/sessions/${session.session_id}/step`, apiKey, {
          input_packet: { command: 'note', args: { text: `bench note ${n} of session ${i}` } },
        });
      }
      sessions.push(session.session_id);
    }
    const steps = (command: string, seconds = ctx.durationSeconds) =>
      runSteps(oursUrl, apiKey, sessions, command, ctx.connections, seconds);
    const bareTarget = { url: `${servers.bareUrl}/runtime/status` };
    const load = { connections: ctx.connections, durationSeconds: ctx.durationSeconds };

    // Warm both (JIT, pools, key cache, session caches), then interleave measured rounds.
    await steps('recall', ctx.warmupSeconds);
    await runLoad({ ...bareTarget, ...load, durationSeconds: ctx.warmupSeconds });
    const recallRounds: LoadResult[] = [];
    const listRounds: LoadResult[] = [];
    const bareRounds: LoadResult[] = [];
    // Where the CPU goes (µs per request, per process; autocannon runs in this process).
    const ferretdb = serverPid(ctx.serversDataDir, 'ferretdb');
    const oursProcesses = { api: ours.child.pid, ferretdb, client: process.pid };
    const bareProcesses = { bare: bare.child.pid, ferretdb, client: process.pid };
    const cpu = {
      recall: [] as CpuPerRequest[],
      list: [] as CpuPerRequest[],
      bare: [] as CpuPerRequest[],
    };
    /** One measured run: its load result, CPU per request and (ours) database commands. */
    const measured = async (
      run: () => Promise<LoadResult>,
      processes: Record<string, number | undefined>,
      into: CpuPerRequest[],
    ): Promise<LoadResult & { dbCommands: number }> => {
      let result: LoadResult | undefined;
      const before = processes === oursProcesses ? await mongoCommands(oursUrl, adminKey) : 0;
      into.push(
        await cpuMsPerUnit(
          processes,
          // Per 1,000 requests, so the figure is µs per request.
          () => (result?.total ?? 0) / 1000,
          async () => {
            result = await run();
          },
        ),
      );
      const after = processes === oursProcesses ? await mongoCommands(oursUrl, adminKey) : 0;
      return { ...result!, dbCommands: after - before };
    };
    let dbCommandsPerStep = 0;
    let dbCommandsPerList = 0;
    for (let round = 0; round < ctx.rounds; round += 1) {
      bareRounds.push(
        await measured(() => runLoad({ ...bareTarget, ...load }), bareProcesses, cpu.bare),
      );
      const result = await measured(() => steps('recall'), oursProcesses, cpu.recall);
      dbCommandsPerStep += result.dbCommands / result.total / ctx.rounds;
      recallRounds.push(result);
      const list = await measured(() => steps('list_objects'), oursProcesses, cpu.list);
      dbCommandsPerList += list.dbCommands / list.total / ctx.rounds;
      listRounds.push(list);
    }
    const recall = meanOf(recallRounds);
    const list = meanOf(listRounds);
    const bareMean = meanOf(bareRounds);
    const throughputRatio = round2(recall.requestsPerSecond / bareMean.requestsPerSecond);
    const p99Ratio = round2(recall.p99Ms / bareMean.p99Ms);
    const listRatio = round2(list.requestsPerSecond / bareMean.requestsPerSecond);
    return {
      suite: 'sessions',
      description:
        'POST /v1/sessions/{id}/step (authenticated, full middleware; `recall` in preserve mode, and `list_objects`) over one session per connection, vs bare Koa reading the runtime document; cpuUs_<process>: CPU µs per request',
      results: {
        recall: {
          ...recall,
          peakRssMiB: ours.peakRssMiB(),
          dbCommandsPerRequest: round2(dbCommandsPerStep),
          ...cpuColumns(cpu.recall),
        },
        list_objects: {
          ...list,
          dbCommandsPerRequest: round2(dbCommandsPerList),
          ...cpuColumns(cpu.list),
        },
        bare: {
          ...bareMean,
          peakRssMiB: bare.peakRssMiB(),
          dbCommandsPerRequest: 1,
          ...cpuColumns(cpu.bare),
        },
      },
      ratios: {
        throughput: throughputRatio,
        p99: p99Ratio,
        list_objects_throughput: listRatio,
      },
      targets: [
        { name: 'list_objects step throughput ≥ 0.7× bare (issue 17)', met: listRatio >= 0.7 },
        { name: 'recall step throughput ≥ 0.6× bare', met: throughputRatio >= 0.6 },
        // The step is one insert (the claim is the record), grouped with concurrent steps into
        // one command; the notes come from the process cache.
        {
          name: 'recall step: at most one database command per step',
          met: dbCommandsPerStep <= 1.05,
        },
        {
          name: 'no errors or non-2xx',
          met:
            recall.errors + recall.non2xx + list.errors + list.non2xx + bareMean.errors === 0 &&
            bareMean.non2xx === 0,
        },
      ],
    };
  } finally {
    await servers.stop();
  }
}

const round2 = (n: number): number => Math.round(n * 100) / 100;

/** CPU µs per request of each process in one measured run (`cpuMsPerUnit` per 1,000). */
type CpuPerRequest = Record<string, number>;

/** Mean CPU µs per request over the rounds, as `cpuUs_<process>` columns. */
function cpuColumns(rounds: CpuPerRequest[]): Record<string, number> {
  const names = Object.keys(rounds[0] ?? {});
  return Object.fromEntries(
    names.map((name) => [
      `cpuUs_${name}`,
      Math.round(rounds.reduce((sum, r) => sum + (r[name] ?? 0), 0) / rounds.length),
    ]),
  );
}
