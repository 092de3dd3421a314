import { sleep } from '../retrying-fetch';
import { CliError } from './fail';

export interface PollOptions<T> {
  /** Reads the thing afresh. */
  read(): Promise<T>;
  /** True once nothing more will happen to it. */
  done(value: T): boolean;
  /** Called with each reading that differs from the one before (by `key`). */
  onChange(value: T): void;
  /** What "differs" looks at (status, stage, progress). */
  key(value: T): string;
  intervalMs: number;
  /** Give up after this long (undefined: wait as long as it takes). */
  timeoutMs?: number;
  /** What the timeout's message calls the thing. */
  label: string;
}

/**
 * Reads until `done`, reporting each change, and answers the last reading. Past the
 * timeout it fails naming how the thing stood (it goes on in the service).
 */
export async function pollUntilDone<T>(options: PollOptions<T>): Promise<T> {
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  let previous: string | undefined;
  for (;;) {
    const value = await options.read();
    const key = options.key(value);
    if (key !== previous) options.onChange(value);
    previous = key;
    if (options.done(value)) return value;
    if (Date.now() + options.intervalMs > deadline) {
      throw new CliError(`gave up waiting: ${options.label} still ${key}`);
    }
    await sleep(options.intervalMs);
  }
}
