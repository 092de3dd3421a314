import { createReadStream } from 'node:fs';
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * The ledger checkpoint file: one JSON line per recorded batch of action transitions,
 * appended by whichever process recorded it (the worker's record activity, the api's
 * `aborted`), outside the database (docs/actions.md). Its lines are signed with the ledger
 * seal key (`ledger-seal.ts`); the proof checks compare the ledger with them, so a chain
 * cut short or rewritten after a batch was recorded is found.
 *
 * One file per database, `<dir>/<database>.jsonl`. Several processes on one host append to
 * the same file: each line is one `write` on a file opened with `O_APPEND`, which a local
 * file system never interleaves (on a network file system, give each process its own
 * directory and ship them together). No fsync per line: a host crash may lose the newest
 * lines (the ledger then only reaches past its last checkpoint, which a proof reports once
 * the grace has passed), never reorder or tear earlier ones; an fsync per batch would cost
 * a disk flush on every action transition.
 */
export interface LedgerCheckpoint {
  /** The database the ledger is in (the file is per database too). */
  db: string;
  action_id: string;
  /** The first seq the batch recorded. */
  from_seq: number;
  /** Its last seq: the head's. */
  seq: number;
  /** The digest of entry `<action_id>:<seq>` as recorded. */
  head: string;
  /** When the line was written (the recording process's clock). */
  at: string;
  /** The sealing key's public key, hex. */
  key_id: string;
  /** Ed25519 over `checkpointMessage`, hex. */
  signature: string;
}

/**
 * Appends one JSON line to `<dir>/<file>` (creating the directory when it is not there): one
 * `write` under `O_APPEND`. The ledger's checkpoints and the audit's (`audit-seal.ts`) use it.
 */
export async function appendJsonLine(dir: string, file: string, value: object): Promise<void> {
  const line = `${JSON.stringify(value)}\n`;
  try {
    await appendFile(join(dir, file), line);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dir, { recursive: true });
    await appendFile(join(dir, file), line);
  }
}

/**
 * Every JSON line of `<dir>/<file>` that parses, in file order; none when there is no file
 * yet. Read line by line (the file grows by a line at a time and is never rewritten). A line
 * that does not parse (one torn by a crash while it was written) is skipped.
 */
export async function readJsonLines(dir: string, file: string): Promise<unknown[]> {
  const stream = createReadStream(join(dir, file), 'utf8');
  const opened = await new Promise<boolean>((resolve, reject) => {
    stream.once('ready', () => resolve(true));
    stream.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? resolve(false) : reject(error),
    );
  });
  if (!opened) return [];
  const values: unknown[] = [];
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    if (!line) continue;
    try {
      values.push(JSON.parse(line));
    } catch {
      // A torn line: what it named is still in the database, only not checkpointed.
    }
  }
  return values;
}

const fileOf = (database: string) => `${database}.jsonl`;

/** Appends one checkpoint line. */
export const appendCheckpoint = (
  dir: string,
  database: string,
  checkpoint: LedgerCheckpoint,
): Promise<void> => appendJsonLine(dir, fileOf(database), checkpoint);

/** Every checkpoint of the database, in file order; none when there is no file yet. */
export async function readCheckpoints(dir: string, database: string): Promise<LedgerCheckpoint[]> {
  const lines = (await readJsonLines(dir, fileOf(database))) as LedgerCheckpoint[];
  return lines.filter((line) => line?.db === database && typeof line.action_id === 'string');
}
