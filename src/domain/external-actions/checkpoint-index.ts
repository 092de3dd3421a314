import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { LedgerCheckpoint } from './ledger-checkpoints';
import { checkpointProblem } from './ledger-seal';

/**
 * What one checkpoint line claims about an action (its batch's last seq and the head after
 * it), and where its bytes are in the file. The signature is checked only when the claim
 * would refuse something (`verified`): an Ed25519 verification costs far more than the
 * rest of a refresh, and a claim the ledger agrees with refuses nothing, signed or not.
 */
export interface CheckpointClaim {
  readonly action_id: string;
  readonly seq: number;
  readonly head: string;
  /** Byte offset and length of its line (without the newline). */
  readonly offset: number;
  readonly length: number;
  /** Set once checked: whether the line is signed by an accepted key. */
  valid?: boolean;
}

/**
 * The checkpoint file of one database, indexed by action in process memory, for the checks
 * before an action's records and effects (`ledger-checkpoint-check.ts`).
 *
 * The file only grows, a line per recorded batch, so the index reads it once and then only
 * the bytes appended since: `refresh` is a `stat` and, when the size moved, one read of the
 * new tail. Invariants: `offset` is the end of the last complete line read (a newline ends
 * every line), so a line torn by a writer still writing, or by a crash, is read again whole
 * next time; and the byte before `offset` is a newline, which is checked on every read of a
 * tail, so a file replaced or cut and regrown past `offset` is not read from the middle of a
 * line. A file of another inode, a shorter one or a missing one is read again from 0 (its
 * claims are then what it holds now).
 */
export interface CheckpointIndex {
  /** Reads what was appended since the last refresh; concurrent callers share one read. */
  refresh(): Promise<void>;
  /** The claims of one action, in file order (none: no checkpoint names it). */
  claimsOf(actionId: string): readonly CheckpointClaim[];
  /** Whether a claim's line carries a valid signature by an accepted key (checked once). */
  verified(claim: CheckpointClaim): Promise<boolean>;
}

const NEWLINE = 0x0a;
/** How much of the file one read takes at most (the first refresh of a large file loops). */
const CHUNK = 1 << 20;
/** Every line starts so (`appendCheckpoint` writes `db` first): where a torn line's successor begins. */
const LINE_START = '{"db":';

export function createCheckpointIndex(options: {
  dir: string;
  database: string;
  acceptedKeys: readonly string[];
}): CheckpointIndex {
  const file = join(options.dir, `${options.database}.jsonl`);
  let claims = new Map<string, CheckpointClaim[]>();
  let offset = 0;
  let identity: string | null = null;

  const restart = () => {
    claims = new Map();
    offset = 0;
  };

  /** Takes one complete line (at `at` in the file) into the index; a malformed one is skipped. */
  function ingest(text: string, at: number): void {
    const parsed = parseLine(text, options.database);
    if (!parsed) {
      // A line torn by a crash, with the next writer's line glued to it: that line is whole.
      const start = text.lastIndexOf(LINE_START);
      if (start > 0) ingest(text.slice(start), at + Buffer.byteLength(text.slice(0, start)));
      return;
    }
    const claim = {
      action_id: parsed.action_id,
      seq: parsed.seq,
      head: parsed.head,
      offset: at,
      length: Buffer.byteLength(text),
    };
    const held = claims.get(claim.action_id);
    if (held) held.push(claim);
    else claims.set(claim.action_id, [claim]);
  }

  /**
   * Synchronous file calls: a refresh is a `stat` and, after a batch was recorded, a read of
   * a line or two, a few microseconds each, less than the thread pool's round trips would
   * cost. A long tail (the first read of a large file) yields between chunks.
   */
  async function readTail(): Promise<void> {
    let info;
    try {
      info = statSync(file, { bigint: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (offset > 0 || claims.size > 0) restart();
      identity = null;
      return;
    }
    const size = Number(info.size);
    const now = `${info.dev}:${info.ino}`;
    if (now !== identity || size < offset) restart();
    identity = now;
    if (size === offset) return;
    const fd = openSync(file, 'r');
    try {
      if (offset > 0) {
        const before = Buffer.alloc(1);
        readSync(fd, before, 0, 1, offset - 1);
        if (before[0] !== NEWLINE) restart();
      }
      // `data` always starts at `offset`: what is left after its last newline is carried.
      let carry = Buffer.alloc(0);
      let position = offset;
      for (let chunks = 0; position < size; chunks += 1) {
        if (chunks > 0) await new Promise(setImmediate);
        const chunk = Buffer.alloc(Math.min(CHUNK, size - position));
        const bytesRead = readSync(fd, chunk, 0, chunk.length, position);
        if (bytesRead === 0) break;
        position += bytesRead;
        const data = Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
        let start = 0;
        for (let nl = data.indexOf(NEWLINE); nl >= 0; nl = data.indexOf(NEWLINE, start)) {
          if (nl > start) ingest(data.toString('utf8', start, nl), offset + start);
          start = nl + 1;
        }
        offset += start;
        carry = data.subarray(start);
      }
    } finally {
      closeSync(fd);
    }
  }

  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  function refresh(): Promise<void> {
    if (!running) {
      running = readTail().finally(() => {
        running = null;
      });
      return running;
    }
    // A read in flight may have begun before the caller's lines were appended: one more.
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = null;
        return refresh();
      });
    return queued;
  }

  async function verified(claim: CheckpointClaim): Promise<boolean> {
    if (claim.valid !== undefined) return claim.valid;
    const line = await readLine(file, claim.offset, claim.length).catch(() => null);
    const checkpoint = line === null ? null : parseLine(line, options.database);
    // The bytes must still be the claim's (a file replaced since is read anew by `refresh`).
    const same =
      checkpoint !== null &&
      checkpoint.action_id === claim.action_id &&
      checkpoint.seq === claim.seq &&
      checkpoint.head === claim.head;
    claim.valid = same && checkpointProblem(options.acceptedKeys, checkpoint) === null;
    return claim.valid;
  }

  return { refresh, claimsOf: (actionId) => claims.get(actionId) ?? [], verified };
}

/** A checkpoint line of `database` with the fields the index relies on, or null. */
function parseLine(text: string, database: string): LedgerCheckpoint | null {
  try {
    const parsed = JSON.parse(text) as LedgerCheckpoint;
    return parsed !== null &&
      typeof parsed === 'object' &&
      parsed.db === database &&
      typeof parsed.action_id === 'string' &&
      Number.isSafeInteger(parsed.seq) &&
      typeof parsed.head === 'string'
      ? parsed
      : null;
  } catch {
    return null;
  }
}

async function readLine(file: string, offset: number, length: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await handle.read(bytes, 0, length, offset);
    return bytes.toString('utf8', 0, bytesRead);
  } finally {
    await handle.close();
  }
}
