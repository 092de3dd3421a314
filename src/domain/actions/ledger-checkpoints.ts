import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

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

const fileOf = (dir: string, database: string) => join(dir, `${database}.jsonl`);

const madeDirs = new Set<string>();

/** Appends one checkpoint line (creating the directory on first use). */
export async function appendCheckpoint(
  dir: string,
  database: string,
  checkpoint: LedgerCheckpoint,
): Promise<void> {
  if (!madeDirs.has(dir)) {
    await mkdir(dir, { recursive: true });
    madeDirs.add(dir);
  }
  await appendFile(fileOf(dir, database), `${JSON.stringify(checkpoint)}\n`);
}

/**
 * Every checkpoint of the database, in file order; none when there is no file yet. A line
 * that does not parse (one torn by a crash while it was written) is skipped.
 */
export async function readCheckpoints(dir: string, database: string): Promise<LedgerCheckpoint[]> {
  let text: string;
  try {
    text = await readFile(fileOf(dir, database), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const checkpoints: LedgerCheckpoint[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const parsed = JSON.parse(line) as LedgerCheckpoint;
      if (parsed.db === database && typeof parsed.action_id === 'string') checkpoints.push(parsed);
    } catch {
      // A torn line: the batch it named is still in the ledger, only not checkpointed.
    }
  }
  return checkpoints;
}
