import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mintApiKey } from '../../src/auth/api-key';
import { startNodeProcess, startNodeServer, type ServerProcess } from '../lib/processes';

const run = promisify(execFile);

/** Where the chaos run's own servers live (never the developer's or the test suite's). */
export interface ChaosServers {
  repoRoot: string;
  dataDir: string;
  ferretdbPort: number;
  temporalPort: number;
  temporalUiPort: number;
}

export type ServerName = 'ferretdb' | 'temporal';

/** `scripts/servers.sh <command>` on the chaos data folder and ports. */
export async function servers(config: ChaosServers, command: 'start' | 'stop'): Promise<void> {
  await run('bash', [join(config.repoRoot, 'scripts', 'servers.sh'), command], {
    env: {
      ...process.env,
      GR_DATA_DIR: config.dataDir,
      FERRETDB_PORT: String(config.ferretdbPort),
      TEMPORAL_PORT: String(config.temporalPort),
      TEMPORAL_UI_PORT: String(config.temporalUiPort),
    },
  });
}

/** SIGKILLs one server by the pid servers.sh recorded; its data stays where it was. */
export function killServer(config: ChaosServers, name: ServerName): void {
  const pid = Number(readFileSync(join(config.dataDir, 'run', `${name}.pid`), 'utf8').trim());
  process.kill(pid, 'SIGKILL');
}

/** Waits until the api's service monitor sees MongoDB, Temporal and a polling worker. */
async function untilReady(apiUrl: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const answer = await fetch(`${apiUrl}/readyz`).then(
      async (res) => (await res.json()) as { payload?: { status?: string }; status?: string },
      () => undefined,
    );
    if ((answer?.payload?.status ?? answer?.status) === 'ready') return;
    if (Date.now() > deadline) throw new Error(`${apiUrl} not ready in 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Two api and two worker processes on one database and task queue. */
export interface Cluster {
  apiUrls: string[];
  adminKey: string;
  mongoUri: string;
  kill(kind: 'api' | 'worker', index: number): void;
  restart(kind: 'api' | 'worker', index: number): Promise<void>;
  /** Workers that exited by themselves and were started again. */
  workerSelfExits(): number;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  distDir: string;
  logDir: string;
  servers: ChaosServers;
  apiPorts: number[];
  workers: number;
  webhookAllowlist: string;
}

/** Starts the api processes (waiting for `/healthz`), then the workers. */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const suffix = randomBytes(3).toString('hex');
  const adminKey = mintApiKey(randomBytes(6).toString('hex'));
  const mongoUri = `mongodb://127.0.0.1:${options.servers.ferretdbPort}/chaos_${suffix}`;
  const env = {
    MONGODB_URI: mongoUri,
    TEMPORAL_ADDRESS: `127.0.0.1:${options.servers.temporalPort}`,
    TEMPORAL_TASK_QUEUE: `chaos-${suffix}`,
    KEY_PEPPER: randomBytes(32).toString('hex'),
    ADMIN_API_KEY: adminKey,
    WEBHOOK_ALLOWLIST: options.webhookAllowlist,
    // Faults are noticed within a second or two, not the production default of 15 s.
    SERVICE_MONITOR_INTERVAL_MS: '1000',
    LOG_LEVEL: 'warn',
    // The driver's topology events (server marked unknown, monitor checks) go to each
    // process's log: what to read when a client does not come back after FerretDB does.
    MONGODB_LOG_TOPOLOGY: 'debug',
    MONGODB_LOG_PATH: 'stderr',
  };
  const apiUrls = options.apiPorts.map((port) => `http://127.0.0.1:${port}`);
  const startApi = (i: number) =>
    startNodeServer(
      join(options.distDir, 'src', 'main.js'),
      { ...env, PORT: String(options.apiPorts[i]) },
      join(options.logDir, `chaos-api-${i}.log`),
      `${apiUrls[i]}/healthz`,
    );
  const startWorker = (i: number) =>
    startNodeProcess(
      join(options.distDir, 'src', 'worker.js'),
      env,
      join(options.logDir, `chaos-worker-${i}.log`),
      async () => true,
    );
  const apis: ServerProcess[] = [];
  const workers: ServerProcess[] = [];
  let stopping = false;
  const killed = new Set<ServerProcess>();
  let workerSelfExits = 0;
  // As `restart: unless-stopped` does in docker-compose: a worker that exits by itself (its
  // database client stuck, docs/chaos.md) is started again.
  const supervise = (i: number, worker: ServerProcess) => {
    worker.child.once('exit', () => {
      if (stopping || killed.has(worker)) return;
      workerSelfExits += 1;
      void startWorker(i).then((next) => {
        workers[i] = next;
        supervise(i, next);
      });
    });
  };
  const addWorker = async (i: number) => {
    workers[i] = await startWorker(i);
    supervise(i, workers[i]);
  };
  const stopAll = async () => {
    stopping = true;
    await Promise.all([...workers, ...apis].map((p) => p.stop()));
  };
  try {
    for (let i = 0; i < apiUrls.length; i += 1) apis.push(await startApi(i));
    for (let i = 0; i < options.workers; i += 1) await addWorker(i);
    await untilReady(apiUrls[0]);
  } catch (error) {
    await stopAll();
    throw error;
  }
  return {
    apiUrls,
    adminKey,
    mongoUri,
    kill(kind, index) {
      const target = (kind === 'api' ? apis : workers)[index];
      killed.add(target);
      target.child.kill('SIGKILL');
    },
    async restart(kind, index) {
      if (kind === 'api') apis[index] = await startApi(index);
      else await addWorker(index);
    },
    workerSelfExits: () => workerSelfExits,
    stop: stopAll,
  };
}
