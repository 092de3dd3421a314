import type { Command } from 'commander';
import type { GovernedClient } from '../client';
import { resolveConnection, type ConnectionFlags } from './config';
import { CliError } from './fail';
import { cliClient } from './http';
import { createOutput, type Output } from './output';

/** The options every command takes. */
export interface CommonFlags extends ConnectionFlags {
  json?: boolean;
}

/** Adds `--json`, `--url`, `--key` and `--profile` to a command. */
export function withCommonOptions(command: Command): Command {
  return command
    .option('--json', 'print JSON (one document on stdout) for scripts')
    .option('--url <url>', 'service URL (else GR_URL, else the profile)')
    .option('--key <key>', 'API key (else GR_API_KEY, else the profile)')
    .option('--profile <name>', 'profile of the config file (else GR_PROFILE, else its current)');
}

/** What a command works with: a client of the service and where to write. */
export interface Session {
  client: GovernedClient;
  out: Output;
  url: string;
}

export function openSession(flags: CommonFlags): Session {
  const { url, key } = resolveConnection(flags);
  return {
    client: cliClient(url, key),
    out: createOutput(Boolean(flags.json)),
    url,
  };
}

/** A whole number of milliseconds from a flag given in seconds (`--timeout 90`). */
export function secondsFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new CliError(`${name} must be a positive number of seconds, not ${value}`, 2);
  }
  return Math.round(seconds * 1000);
}

/** A positive integer flag (`--limit 20`). */
export function countFlag(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1) {
    throw new CliError(`${name} must be a positive whole number, not ${value}`, 2);
  }
  return count;
}

/** The flags of `watch`: how often to read and how long to wait. */
export interface WatchFlags extends CommonFlags {
  interval?: string;
  timeout?: string;
}

/** Adds `--interval` and `--timeout` (seconds) to a `watch` command. */
export const withWatchOptions = (command: Command): Command =>
  command
    .option('--interval <seconds>', 'between reads (default 1)')
    .option('--timeout <seconds>', 'give up after this long (default: wait as long as it takes)');

/** The polling of a `watch` command from its flags, in milliseconds. */
export const watchTiming = (flags: WatchFlags) => ({
  intervalMs: secondsFlag('--interval', flags.interval) ?? 1000,
  timeoutMs: secondsFlag('--timeout', flags.timeout),
});

/** The first `limit` items of a list (a `paginate` walk), reading no page beyond them. */
export async function firstItems<T>(items: AsyncIterable<T>, limit: number): Promise<T[]> {
  const found: T[] = [];
  if (limit <= 0) return found;
  for await (const item of items) {
    found.push(item);
    if (found.length >= limit) break;
  }
  return found;
}
