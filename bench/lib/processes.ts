import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';

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
  const child = spawn(process.execPath, [script], {
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
