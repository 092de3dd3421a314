import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Clock ticks per second of /proc's utime/stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a live process has used so far; 0 when it is gone. */
export function cpuSecondsOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    // The command name may hold spaces: the fields are counted after its closing bracket.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The pid the servers script wrote for one of the embedded servers (`ferretdb`, `temporal`). */
export function serverPid(dataDir: string, name: 'ferretdb' | 'temporal'): number | undefined {
  try {
    return Number(readFileSync(join(dataDir, 'run', `${name}.pid`), 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where the CPU goes while `work` runs: seconds per named process, divided by `units` (so
 * "CPU ms per action"), rounded to 0.1 ms. The processes are read before and after.
 */
export async function cpuMsPerUnit(
  processes: Record<string, number | undefined>,
  units: () => number,
  work: () => Promise<void>,
): Promise<Record<string, number>> {
  const before = Object.fromEntries(
    Object.entries(processes).map(([name, pid]) => [name, cpuSecondsOf(pid)]),
  );
  await work();
  const count = Math.max(1, units());
  const perUnit: Record<string, number> = {};
  let total = 0;
  for (const [name, pid] of Object.entries(processes)) {
    const ms = ((cpuSecondsOf(pid) - (before[name] ?? 0)) * 1000) / count;
    perUnit[name] = Math.round(ms * 10) / 10;
    total += ms;
  }
  perUnit['total'] = Math.round(total * 10) / 10;
  return perUnit;
}

/** CPU per unit of each process in one measured run, as `cpuMsPerUnit` returns it. */
export type CpuPerUnit = Record<string, number>;

/** The mean over measured rounds, one `<prefix><process>` column each, rounded to 1. */
export function cpuColumns(rounds: CpuPerUnit[], prefix: string): Record<string, number> {
  const names = Object.keys(rounds[0] ?? {});
  return Object.fromEntries(
    names.map((name) => [
      `${prefix}${name}`,
      Math.round(rounds.reduce((sum, r) => sum + (r[name] ?? 0), 0) / rounds.length),
    ]),
  );
}
