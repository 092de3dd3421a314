import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mintApiKey } from '../../src/auth/api-key';
import { createUnlimitedKey } from './api';

export interface ServerProcess {
  child: ChildProcess;
  /** Peak resident set size (VmHWM) so far, in MiB. */
  peakRssMiB(): number;
  stop(): Promise<void>;
}

/** Starts a node script as a child process, logging to a file, and waits for `readyUrl`. */
export function startNodeServer(
  script: string,
  env: Record<string, string>,
  logFile: string,
  readyUrl: string,
): Promise<ServerProcess> {
  return startNodeProcess(script, env, logFile, async () => {
    try {
      return (await fetch(readyUrl)).ok;
    } catch {
      return false;
    }
  });
}

/** Starts a node script as a child process, logging to a file, and waits until `isReady`. */
export async function startNodeProcess(
  script: string,
  env: Record<string, string>,
  logFile: string,
  isReady: () => Promise<boolean>,
): Promise<ServerProcess> {
  const log = openSync(logFile, 'a');
  // BENCH_CPU_PROFILE_DIR: every process writes a V8 CPU profile there when it stops.
  const profileDir = process.env['BENCH_CPU_PROFILE_DIR'];
  const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...profiling, script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', log, log],
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`${script} exited (${child.exitCode}); see ${logFile}`);
    }
    if (await isReady().catch(() => false)) break;
    if (Date.now() > deadline) throw new Error(`${script} not ready in 60 s; see ${logFile}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    peakRssMiB() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
      return Math.round((kb / 1024) * 10) / 10;
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}

/** Where and how a suite starts our api (`startApi`). */
export interface ApiOptions {
  distDir: string;
  logDir: string;
  mongoUri: string;
  temporalAddress: string;
  port: number;
  /** Names the log, `<name>-api.log`. */
  name: string;
}

/** Our api on `mongoUri` with an admin key minted for it; waits until it answers. */
export async function startApi(
  options: ApiOptions,
): Promise<{ api: ServerProcess; base: string; adminKey: string }> {
  const adminKey = mintApiKey(randomBytes(6).toString('hex'));
  const base = `http://127.0.0.1:${options.port}`;
  const api = await startNodeServer(
    join(options.distDir, 'src', 'main.js'),
    {
      PORT: String(options.port),
      MONGODB_URI: options.mongoUri,
      TEMPORAL_ADDRESS: options.temporalAddress,
      KEY_PEPPER: randomBytes(32).toString('hex'),
      ADMIN_API_KEY: adminKey,
      LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
    },
    join(options.logDir, `${options.name}-api.log`),
    `${base}/healthz`,
  );
  return { api, base, adminKey };
}

/** Our api and the bare Koa baseline, on one fresh database of the bench FerretDB. */
export interface ApiAndBare {
  ours: ServerProcess;
  bare: ServerProcess;
  oursUrl: string;
  bareUrl: string;
  adminKey: string;
  /** The database both read. */
  mongoUri: string;
  stop(): Promise<void>;
}

export interface ApiAndBareOptions {
  distDir: string;
  logDir: string;
  mongoBaseUri: string;
  temporalAddress: string;
  suite: string;
  oursPort: number;
  barePort: number;
}

/** Starts both servers (logs `<suite>-api.log`, `<suite>-bare.log`) and waits for them. */
export async function startApiAndBare(options: ApiAndBareOptions): Promise<ApiAndBare> {
  const mongoUri = `${options.mongoBaseUri}bench_${options.suite.replace(/-/g, '_')}_${randomBytes(3).toString('hex')}`;
  const adminKey = mintApiKey(randomBytes(6).toString('hex'));
  const oursUrl = `http://127.0.0.1:${options.oursPort}`;
  const bareUrl = `http://127.0.0.1:${options.barePort}`;
  const ours = await startNodeServer(
    join(options.distDir, 'src', 'main.js'),
    {
      PORT: String(options.oursPort),
      MONGODB_URI: mongoUri,
      TEMPORAL_ADDRESS: options.temporalAddress,
      KEY_PEPPER: randomBytes(32).toString('hex'),
      ADMIN_API_KEY: adminKey,
      LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'info',
    },
    join(options.logDir, `${options.suite}-api.log`),
    `${oursUrl}/healthz`,
  );
  try {
    const bare = await startNodeServer(
      join(options.distDir, 'bench', 'baseline', 'bare-koa.js'),
      { PORT: String(options.barePort), MONGODB_URI: mongoUri },
      join(options.logDir, `${options.suite}-bare.log`),
      `${bareUrl}/healthz`,
    );
    return {
      ours,
      bare,
      oursUrl,
      bareUrl,
      adminKey,
      mongoUri,
      async stop() {
        await ours.stop();
        await bare.stop();
      },
    };
  } catch (error) {
    await ours.stop();
    throw error;
  }
}

/** Our api and one worker process on a fresh database and task queue of their own. */
export interface ApiAndWorker {
  api: ServerProcess;
  worker: ServerProcess;
  base: string;
  /** An unlimited strategic key. */
  key: string;
  mongoUri: string;
  stop(): Promise<void>;
}

/** Starts the api (logs `<suite>-api.log`), mints a key, then the worker (`<suite>-worker.log`). */
export async function startApiAndWorker(
  options: Pick<
    ApiAndBareOptions,
    'distDir' | 'logDir' | 'mongoBaseUri' | 'temporalAddress' | 'suite'
  > & {
    port: number;
  },
): Promise<ApiAndWorker> {
  const suffix = randomBytes(3).toString('hex');
  const adminKey = mintApiKey(randomBytes(6).toString('hex'));
  const mongoUri = `${options.mongoBaseUri}bench_${options.suite.replace(/-/g, '_')}_${suffix}`;
  const env = {
    MONGODB_URI: mongoUri,
    TEMPORAL_ADDRESS: options.temporalAddress,
    TEMPORAL_TASK_QUEUE: `bench-${options.suite}-${suffix}`,
    KEY_PEPPER: randomBytes(32).toString('hex'),
    ADMIN_API_KEY: adminKey,
    LOG_LEVEL: 'warn',
  };
  const base = `http://127.0.0.1:${options.port}`;
  const api = await startNodeServer(
    join(options.distDir, 'src', 'main.js'),
    { ...env, PORT: String(options.port) },
    join(options.logDir, `${options.suite}-api.log`),
    `${base}/healthz`,
  );
  try {
    const key = await createUnlimitedKey(base, adminKey);
    const worker = await startNodeProcess(
      join(options.distDir, 'src', 'worker.js'),
      env,
      join(options.logDir, `${options.suite}-worker.log`),
      async () => (await fetch(`${base}/readyz`)).ok,
    );
    return {
      api,
      worker,
      base,
      key,
      mongoUri,
      async stop() {
        await worker.stop();
        await api.stop();
      },
    };
  } catch (error) {
    await api.stop();
    throw error;
  }
}
