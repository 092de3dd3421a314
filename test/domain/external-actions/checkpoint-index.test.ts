import { randomBytes } from 'node:crypto';
import { appendFile, mkdtemp, readFile, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCheckpointIndex,
  type CheckpointIndex,
} from '../../../src/domain/external-actions/checkpoint-index';
import {
  createLedgerSeal,
  type LedgerSeal,
} from '../../../src/domain/external-actions/ledger-seal';

// The in-process index of the checkpoint file (docs/actions.md, "Resets"): read once, then
// only what was appended; torn lines read again whole; a replaced or cut file read anew.

const DB = 'gr_index';
let dir: string;
let file: string;
let seal: LedgerSeal;
let index: CheckpointIndex;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'checkpoint-index-'));
  file = join(dir, `${DB}.jsonl`);
  seal = createLedgerSeal({ seed: randomBytes(32), checkpointDir: dir, database: DB });
  index = createCheckpointIndex({ dir, database: DB, acceptedKeys: seal.acceptedKeys });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const head = (n: number) => `sha256:${String(n).padStart(64, '0')}`;
const checkpoint = (actionId: string, fromSeq: number, seq: number) =>
  seal.checkpoint({ action_id: actionId, from_seq: fromSeq, seq, head: head(seq) });
const seqsOf = (actionId: string) => index.claimsOf(actionId).map((claim) => claim.seq);

describe('the checkpoint index', () => {
  it('knows nothing while there is no file, then reads it', async () => {
    await index.refresh();
    expect(seqsOf('act_A')).toEqual([]);
    await checkpoint('act_A', 1, 2);
    await index.refresh();
    expect(index.claimsOf('act_A')).toEqual([
      expect.objectContaining({ action_id: 'act_A', seq: 2, head: head(2), offset: 0 }),
    ]);
  });

  it('keeps several actions apart and reads only what was appended since', async () => {
    await checkpoint('act_A', 1, 2);
    await checkpoint('act_B', 1, 2);
    await index.refresh();
    await checkpoint('act_A', 3, 3);
    await checkpoint('act_B', 3, 4);
    await checkpoint('act_A', 4, 5);
    await index.refresh();
    expect(seqsOf('act_A')).toEqual([2, 3, 5]);
    expect(seqsOf('act_B')).toEqual([2, 4]);
    // Each line's place in the file, for the signature check later.
    const text = await readFile(file, 'utf8');
    for (const claim of [...index.claimsOf('act_A'), ...index.claimsOf('act_B')]) {
      const line = text.slice(claim.offset, claim.offset + claim.length);
      expect(JSON.parse(line)).toMatchObject({ action_id: claim.action_id, seq: claim.seq });
    }
    // Nothing new: nothing changes.
    await index.refresh();
    expect(seqsOf('act_A')).toEqual([2, 3, 5]);
  });

  it('reads a file larger than one read in chunks, lines across their borders whole', async () => {
    await checkpoint('act_A', 1, 1);
    const [line] = (await readFile(file, 'utf8')).split('\n');
    // About 1.6 MiB: more than one read takes.
    const lines = Array.from({ length: 4000 }, (_, i) =>
      line.replace('"act_A"', `"act_${i % 7}"`).replace('"seq":1', `"seq":${i + 2}`),
    );
    await appendFile(file, `${lines.join('\n')}\n`);
    await index.refresh();
    const all = Array.from({ length: 7 }, (_, i) => index.claimsOf(`act_${i}`)).flat();
    expect(all).toHaveLength(4000);
    const text = await readFile(file, 'utf8');
    for (const claim of all) {
      const read = JSON.parse(text.slice(claim.offset, claim.offset + claim.length)) as {
        seq: number;
      };
      expect(read.seq).toBe(claim.seq);
    }
  });

  it('does not read again what it has read', async () => {
    await checkpoint('act_A', 1, 2);
    await index.refresh();
    // The same bytes rewritten in place (same inode, same length), then a line appended:
    // only the appended line is read.
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('act_A', 'act_Z'));
    await checkpoint('act_B', 1, 1);
    await index.refresh();
    expect(seqsOf('act_A')).toEqual([2]);
    expect(seqsOf('act_Z')).toEqual([]);
    expect(seqsOf('act_B')).toEqual([1]);
  });

  it('reads a line torn by a writer again when it is whole', async () => {
    await checkpoint('act_A', 1, 2);
    const whole = await readFile(file, 'utf8');
    await checkpoint('act_A', 3, 3);
    const both = await readFile(file, 'utf8');
    const second = both.slice(whole.length);
    await writeFile(file, whole + second.slice(0, 40));
    await index.refresh();
    expect(seqsOf('act_A')).toEqual([2]);
    await appendFile(file, second.slice(40));
    await index.refresh();
    expect(seqsOf('act_A')).toEqual([2, 3]);
    expect(await index.verified(index.claimsOf('act_A')[1])).toBe(true);
  });

  it('skips a line torn by a crash, and takes the whole line glued to it', async () => {
    await checkpoint('act_A', 1, 2);
    const text = await readFile(file, 'utf8');
    await writeFile(file, `${text.slice(0, 50)}garbage\n`);
    await appendFile(file, text.slice(0, 30)); // torn: the next writer's line is glued to it
    await checkpoint('act_B', 1, 1);
    await index.refresh();
    expect(seqsOf('act_A')).toEqual([]);
    expect(seqsOf('act_B')).toEqual([1]);
    expect(await index.verified(index.claimsOf('act_B')[0])).toBe(true);
  });

  it('reads a file cut shorter, or replaced, from the start', async () => {
    await checkpoint('act_A', 1, 2);
    await checkpoint('act_A', 3, 4);
    await index.refresh();
    expect(seqsOf('act_A')).toEqual([2, 4]);
    const text = await readFile(file, 'utf8');
    await truncate(file, text.indexOf('\n') + 1);
    await index.refresh();
    expect(seqsOf('act_A')).toEqual([2]);

    // Replaced by another file (another inode), as long as the one it replaced.
    await checkpoint('act_B', 1, 3);
    await index.refresh();
    const other = join(dir, 'other.jsonl');
    await writeFile(other, (await readFile(file, 'utf8')).replace(/act_A/g, 'act_C'));
    await rename(other, file);
    await index.refresh();
    expect(seqsOf('act_A')).toEqual([]);
    expect(seqsOf('act_C')).toEqual([2]);
    expect(seqsOf('act_B')).toEqual([3]);

    await rm(file);
    await index.refresh();
    expect(seqsOf('act_B')).toEqual([]);
  });

  it('reads a file cut and regrown in place past where it had read from the start', async () => {
    await checkpoint('act_A', 1, 2);
    await index.refresh();
    await truncate(file, 0);
    await appendFile(file, 'x');
    await checkpoint('act_B', 1, 5);
    await checkpoint('act_B', 6, 6);
    await index.refresh();
    expect(seqsOf('act_A')).toEqual([]);
    // The first line is `x` glued to a whole line: that line is taken.
    expect(seqsOf('act_B')).toEqual([5, 6]);
  });

  it('shares one read among concurrent callers, and reads again for those who came during it', async () => {
    await checkpoint('act_A', 1, 1);
    const first = index.refresh();
    // Called while a read is in flight, which may have begun before their lines were
    // appended: one more read, after it, shared by all of them.
    const second = index.refresh();
    expect(second).not.toBe(first);
    expect(index.refresh()).toBe(second);
    await checkpoint('act_A', 2, 2);
    await Promise.all([first, second]);
    await index.refresh();
    expect(seqsOf('act_A')).toEqual([1, 2]);
  });

  it('checks a signature only when asked, once, against the accepted keys', async () => {
    await checkpoint('act_A', 1, 2);
    const foreign = createLedgerSeal({ seed: randomBytes(32), checkpointDir: dir, database: DB });
    await foreign.checkpoint({ action_id: 'act_A', from_seq: 3, seq: 3, head: head(3) });
    // A line with its head edited after signing, and one of another database.
    const text = await readFile(file, 'utf8');
    const [line] = text.split('\n');
    await appendFile(file, `${line.replace(head(2), head(9)).replace('"seq":2', '"seq":9')}\n`);
    await appendFile(file, `${line.replace(`"db":"${DB}"`, '"db":"other"')}\n`);
    await index.refresh();
    const [mine, theirs, edited, ...rest] = index.claimsOf('act_A');
    expect(rest).toEqual([]);
    expect(mine.valid).toBeUndefined();
    expect(await index.verified(mine)).toBe(true);
    expect(await index.verified(theirs)).toBe(false);
    expect(edited).toMatchObject({ seq: 9, head: head(9) });
    expect(await index.verified(edited)).toBe(false);
    expect([mine.valid, theirs.valid, edited.valid]).toEqual([true, false, false]);

    // The other key, once accepted, verifies.
    const both = createCheckpointIndex({
      dir,
      database: DB,
      acceptedKeys: [seal.keyId, foreign.keyId],
    });
    await both.refresh();
    expect(await both.verified(both.claimsOf('act_A')[1])).toBe(true);
  });
});
