import { createUnlimitedKey, mongoCommands, postJson } from './lib/api';
import { meanOf, runLoad, type LoadResult } from './lib/load';
import { startApiAndBare } from './lib/processes';
import type { BenchContext, BenchReport } from './lib/report';

const OURS_PORT = 18483;
const BARE_PORT = 18484;
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
 * no middleware), over as many sessions as connections. `list_objects` (one scan of the demo
 * world plus the insert) is measured alongside for information. Target: ≥ 0.6× the bare
 * throughput for `recall`.
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
    let dbCommandsPerStep = 0;
    for (let round = 0; round < ctx.rounds; round += 1) {
      bareRounds.push(await runLoad({ ...bareTarget, ...load }));
      const before = await mongoCommands(oursUrl, adminKey);
      const result = await steps('recall');
      const after = await mongoCommands(oursUrl, adminKey);
      dbCommandsPerStep += (after - before) / result.total / ctx.rounds;
      recallRounds.push(result);
      listRounds.push(await steps('list_objects'));
    }
    const recall = meanOf(recallRounds);
    const list = meanOf(listRounds);
    const bareMean = meanOf(bareRounds);
    const throughputRatio = round2(recall.requestsPerSecond / bareMean.requestsPerSecond);
    const p99Ratio = round2(recall.p99Ms / bareMean.p99Ms);
    return {
      suite: 'sessions',
      description:
        'POST /v1/sessions/{id}/step (authenticated, full middleware; `recall` in preserve mode, and `list_objects`) over one session per connection, vs bare Koa reading the runtime document',
      results: {
        recall: {
          ...recall,
          peakRssMiB: ours.peakRssMiB(),
          dbCommandsPerRequest: round2(dbCommandsPerStep),
        },
        list_objects: { ...list },
        bare: { ...bareMean, peakRssMiB: bare.peakRssMiB(), dbCommandsPerRequest: 1 },
      },
      ratios: {
        throughput: throughputRatio,
        p99: p99Ratio,
        list_objects_throughput: round2(list.requestsPerSecond / bareMean.requestsPerSecond),
      },
      targets: [
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
