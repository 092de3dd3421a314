import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { startCluster, killServer, servers, type ChaosServers, type Cluster } from './cluster';
import { ChaosClient, type Exchange } from './client';
import { runLoad } from './load';
import { startReceiver } from './receiver';
import { verify, type Verification } from './verify';

/** How long a run loads and where its faults fall. */
export interface ChaosOptions {
  repoRoot: string;
  servers: ChaosServers;
  apiPorts: number[];
  /** Seconds of load; faults are spread over it. */
  durationSeconds: number;
  /** What to kill (default: all four, in the order of `FAULTS`). */
  faults?: readonly FaultName[];
  /** Where `chaos.md` / `chaos.json` go; none when undefined. */
  resultsDir?: string;
}

/** One fault: what was killed, when, and when it was back. */
export interface Fault {
  name: string;
  killedAt: number;
  backAt: number;
}

export interface ChaosResult {
  verification: Verification;
  faults: (Fault & { unavailableSeconds: number; failedRequests: number })[];
  requests: number;
  /** 5xx answers outside every fault window. */
  serverErrorsOutside: number;
  /** The first of those, to read (op, status, when). */
  serverErrorsOutsideSample: Exchange[];
  /** 5xx answers inside a window that were not 503 with Retry-After. */
  badErrorsInside: number;
  /** The first of those, to read. */
  badErrorsInsideSample: Exchange[];
  /** Workers that exited by themselves (a stuck database client) and were restarted. */
  workerSelfExits: number;
  /** Answers per operation and status (0: no answer). */
  statuses: Record<string, Record<string, number>>;
  /** The first body of each `<op> <status>` that was not a success. */
  samples: Record<string, unknown>;
  passed: boolean;
}

// After a fault is repaired, clients still retrying and reconnecting pools need a moment.
const WINDOW_GRACE_MS = 15_000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts everything, loads it while killing its parts in turn, then verifies. */
export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const logDir = join(options.servers.dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  await servers(options.servers, 'start');
  const receiver = await startReceiver();
  let cluster: Cluster | undefined;
  try {
    cluster = await startCluster({
      distDir: join(options.repoRoot, 'dist'),
      logDir,
      servers: options.servers,
      apiPorts: options.apiPorts,
      workers: 2,
      webhookAllowlist: receiver.url,
    });
    const started = Date.now();
    const client = new ChaosClient(cluster.apiUrls, started);
    const keys = await twoPrincipals(client, cluster.adminKey);
    const objects = await client.call<{ items: { object_id: string }[] }>(
      'setup',
      keys.proposer,
      'GET',
      '/v1/worlds/objects?limit=4',
    );
    const objectIds = (objects.payload?.items ?? []).map((o) => o.object_id);
    if (objectIds.length === 0) throw new Error('no world objects to change');
    const sourceFamily = `chaos.run-${started}`;
    const until = client.now() + options.durationSeconds * 1000;
    const load = runLoad({
      client,
      proposerKey: keys.proposer,
      approverKey: keys.approver,
      receiverUrl: receiver.url,
      objectIds,
      webhookLanes: 2,
      ingestLanes: 2,
      until,
      sourceFamily,
    });
    const faults = await injectFaults(cluster, options, client, until);
    const accepted = await load;
    const verification = await verify(client, keys, accepted, receiver.deliveries, sourceFamily);
    const result = {
      ...judge(client, faults, verification),
      workerSelfExits: cluster.workerSelfExits(),
    };
    if (options.resultsDir) writeResults(options.resultsDir, options, result);
    return result;
  } finally {
    await cluster?.stop();
    await receiver.close();
    await servers(options.servers, 'stop');
  }
}

/** The proposer and the approver: two principals with strategic keys and no practical limits. */
async function twoPrincipals(client: ChaosClient, adminKey: string) {
  const mint = async (name: string) => {
    const principal = await client.call<{ principal_id: string }>(
      'setup',
      adminKey,
      'POST',
      '/v1/admin/principals/create',
      {
        name,
        email: `${name}-${Date.now()}@chaos.test`,
        role: 'member',
      },
    );
    const key = await client.call<{ api_key: string; key_id: string }>(
      'setup',
      adminKey,
      'POST',
      '/v1/admin/keys/create',
      {
        principal_id: principal.payload?.principal_id,
        entitlement: 'strategic',
        access_layer: 3,
      },
    );
    if (!key.payload)
      throw new Error(`minting a key for ${name}: ${key.status} ${JSON.stringify(key.body)}`);
    await client.call('setup', adminKey, 'POST', '/v1/admin/policies/create', {
      name: `chaos: ${name} unlimited`,
      scope: { key_id: key.payload.key_id },
      requests_per_minute: 1_000_000,
      daily_quota: 1_000_000_000,
    });
    return key.payload.api_key;
  };
  return { proposer: await mint('ada'), approver: await mint('ben') };
}

/** The parts a run kills, in this order. */
export const FAULTS = ['worker', 'api', 'temporal', 'ferretdb'] as const;
export type FaultName = (typeof FAULTS)[number];

/**
 * Kills with SIGKILL, in turn and spread over the load, the named parts (a worker, an api,
 * the Temporal dev server, FerretDB), each restarted on its own data 5 s later.
 */
async function injectFaults(
  cluster: Cluster,
  options: ChaosOptions,
  client: ChaosClient,
  until: number,
): Promise<Fault[]> {
  const named = options.faults ?? FAULTS;
  const step = (until - client.now()) / (named.length + 1);
  const actions: Record<FaultName, { name: string; kill(): void; restart(): Promise<void> }> = {
    worker: {
      name: 'worker 0',
      kill: () => cluster.kill('worker', 0),
      restart: () => cluster.restart('worker', 0),
    },
    api: {
      name: 'api 0',
      kill: () => cluster.kill('api', 0),
      restart: () => cluster.restart('api', 0),
    },
    temporal: {
      name: 'temporal',
      kill: () => killServer(options.servers, 'temporal'),
      restart: () => servers(options.servers, 'start'),
    },
    ferretdb: {
      name: 'ferretdb',
      kill: () => killServer(options.servers, 'ferretdb'),
      restart: () => servers(options.servers, 'start'),
    },
  };
  const faults: Fault[] = [];
  for (const [index, name] of named.entries()) {
    await pause(Math.max(0, step * (index + 1) - client.now()));
    const action = actions[name];
    const killedAt = client.now();
    action.kill();
    await pause(5000);
    await action.restart();
    faults.push({ name: action.name, killedAt, backAt: client.now() });
  }
  return faults;
}

/** Unavailability per fault, and the 5xx rules: none outside a window, only 503 inside. */
function judge(
  client: ChaosClient,
  faults: Fault[],
  verification: Verification,
): Omit<ChaosResult, 'workerSelfExits'> {
  const { log } = client;
  // An exchange belongs to the newest fault whose window it overlaps.
  const windowOf = (e: Exchange) =>
    [...faults]
      .reverse()
      .find((f) => e.answeredAt >= f.killedAt && e.sentAt <= f.backAt + WINDOW_GRACE_MS);
  const statuses: Record<string, Record<string, number>> = {};
  for (const e of log) {
    const byStatus = (statuses[e.op] ??= {});
    byStatus[e.status] = (byStatus[e.status] ?? 0) + 1;
  }
  let serverErrorsOutside = 0;
  let badErrorsInside = 0;
  const serverErrorsOutsideSample: Exchange[] = [];
  const badErrorsInsideSample: Exchange[] = [];
  for (const e of log) {
    if (e.status < 500) continue;
    if (!windowOf(e)) {
      serverErrorsOutside += 1;
      if (serverErrorsOutsideSample.length < 20) serverErrorsOutsideSample.push(e);
    } else if (e.status !== 503 || e.retryAfter === null) {
      badErrorsInside += 1;
      if (badErrorsInsideSample.length < 20) badErrorsInsideSample.push(e);
    }
  }
  const measured = faults.map((f) => {
    const inWindow = log.filter((e) => windowOf(e) === f);
    const failed = inWindow.filter((e) => e.status === 0 || e.status >= 500);
    // Unavailable: from the kill to the first success of a request sent after the last failure.
    const lastFailure = Math.max(f.killedAt, ...failed.map((e) => e.sentAt));
    const firstSuccess = log.find((e) => e.sentAt >= lastFailure && e.status > 0 && e.status < 500);
    const unavailableSeconds =
      failed.length === 0 ? 0 : ((firstSuccess?.answeredAt ?? lastFailure) - f.killedAt) / 1000;
    return {
      ...f,
      unavailableSeconds: Math.round(unavailableSeconds * 10) / 10,
      failedRequests: failed.length,
    };
  });
  const v = verification;
  const passed =
    v.problems.length === 0 &&
    serverErrorsOutside === 0 &&
    badErrorsInside === 0 &&
    [v.actions, v.webhooks, v.events, v.deployments].every(
      (t) => t.lost === 0 && t.duplicated === 0,
    );
  return {
    verification,
    faults: measured,
    requests: log.length,
    serverErrorsOutside,
    serverErrorsOutsideSample,
    badErrorsInside,
    badErrorsInsideSample,
    statuses,
    samples: Object.fromEntries(client.samples),
    passed,
  };
}

function writeResults(dir: string, options: ChaosOptions, result: ChaosResult): void {
  mkdirSync(dir, { recursive: true });
  const meta = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    duration_s: options.durationSeconds,
  };
  writeFileSync(join(dir, 'chaos.json'), `${JSON.stringify({ ...result, meta }, null, 2)}\n`);
  const v = result.verification;
  const row = (
    name: string,
    t: {
      accepted: number;
      completed: number;
      lost: number;
      duplicated: number;
      other: Record<string, number>;
    },
  ) =>
    `| ${name} | ${t.accepted} | ${t.completed} | ${t.lost} | ${t.duplicated} | ${
      Object.entries(t.other)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || '—'
    } |`;
  const lines = [
    '# Chaos run',
    '',
    `${options.durationSeconds} s of mixed load on 2 api and 2 worker processes while ${result.faults.map((f) => f.name).join(', ')} were SIGKILLed in turn and restarted on their own data. Verdict: **${result.passed ? 'passed' : 'FAILED'}**.`,
    '',
    '| operations | accepted | completed | lost | duplicated | other ends |',
    '| --- | --- | --- | --- | --- | --- |',
    row('world actions', v.actions),
    row('webhook actions', v.webhooks),
    row('ingested events', v.events),
    row('deployments', v.deployments),
    '',
    '| fault | killed at (s) | back at (s) | unavailable (s) | failed requests |',
    '| --- | --- | --- | --- | --- |',
    ...result.faults.map(
      (f) =>
        `| ${f.name} | ${(f.killedAt / 1000).toFixed(1)} | ${(f.backAt / 1000).toFixed(1)} | ${f.unavailableSeconds} | ${f.failedRequests} |`,
    ),
    '',
    `Requests: ${result.requests}; 5xx outside the fault windows: ${result.serverErrorsOutside}; 5xx inside them other than 503 with Retry-After: ${result.badErrorsInside}.`,
    '',
    '| operation | answers by status |',
    '| --- | --- |',
    ...Object.entries(result.statuses).map(
      ([op, byStatus]) =>
        `| ${op} | ${Object.entries(byStatus)
          .map(([status, n]) => `${status === '0' ? 'no answer' : status}: ${n}`)
          .join(', ')} |`,
    ),
    '',
    `Workers that exited by themselves and were restarted: ${result.workerSelfExits}.`,
    `Webhook redeliveries (same Idempotency-Key again): ${v.webhooks.redelivered}; deployments whose digest is not the engine's: ${v.deployments.digestMismatches}; proofs: ${v.proofs.status}${v.proofs.failed.length ? ` (not passed: ${v.proofs.failed.join(', ')})` : ', all passed'}.`,
    '',
    ...(v.problems.length
      ? ['Problems:', '', ...v.problems.slice(0, 50).map((p) => `- ${p}`), '']
      : []),
    `Run: ${meta.date}, node ${meta.node}, ${meta.cpus} cpus.`,
    '',
  ];
  writeFileSync(join(dir, 'chaos.md'), lines.join('\n'));
}

if (require.main === module) {
  const repoRoot = join(__dirname, '..', '..', '..');
  const duration = Number(process.argv[2] ?? process.env['CHAOS_DURATION'] ?? 240);
  runChaos({
    repoRoot,
    servers: {
      repoRoot,
      dataDir: join(repoRoot, '.data', 'chaos'),
      ferretdbPort: 27021,
      temporalPort: 17236,
      temporalUiPort: 18236,
    },
    apiPorts: [18591, 18592],
    durationSeconds: duration,
    resultsDir: join(repoRoot, 'bench', 'results'),
  })
    .then((result) => {
      console.log(
        JSON.stringify(
          {
            passed: result.passed,
            faults: result.faults,
            problems: result.verification.problems.slice(0, 20),
            serverErrorsOutside: result.serverErrorsOutsideSample,
            badErrorsInside: result.badErrorsInsideSample,
            samples: result.samples,
          },
          null,
          2,
        ),
      );
      process.exitCode = result.passed ? 0 : 1;
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 2;
    });
}
