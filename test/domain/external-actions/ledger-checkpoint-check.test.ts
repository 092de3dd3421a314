import type { CheckpointClaim } from '../../../src/domain/external-actions/checkpoint-index';
import {
  batchCheckpointMismatch,
  checkpointMismatch,
} from '../../../src/domain/external-actions/ledger-checkpoint-check';
import type { ActionLedgerEntry } from '../../../src/store/external-actions.repo';

// The ledger against its signed checkpoints (docs/actions.md, "Resets"): what a record or
// an effect refuses, and what it costs when nothing is wrong.

const digest = (seq: number, edit = '') => `sha256:${edit}${String(seq).padStart(8, '0')}`;
const entries = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ seq: from + i, digest: digest(from + i) }));

/** An index holding these claims of act_X; `forged` seqs carry no valid signature. */
function indexOf(claims: { seq: number; head?: string }[], forged: number[] = []) {
  const held: CheckpointClaim[] = claims.map(({ seq, head }) => ({
    action_id: 'act_X',
    seq,
    head: head ?? digest(seq),
    offset: 0,
    length: 0,
  }));
  const verifiedSeqs: number[] = [];
  return {
    verifiedSeqs,
    refreshes: 0,
    async refresh() {
      this.refreshes += 1;
    },
    claimsOf: (actionId: string) => (actionId === 'act_X' ? held : []),
    async verified(claim: CheckpointClaim) {
      verifiedSeqs.push(claim.seq);
      return !forged.includes(claim.seq);
    },
  };
}

describe('the ledger against its checkpoints', () => {
  it('passes a ledger holding every checkpointed head, without checking a signature', async () => {
    const index = indexOf([{ seq: 2 }, { seq: 3 }, { seq: 5 }]);
    expect(await checkpointMismatch(index, 'act_X', 3, entries(3, 5))).toBeNull();
    // Ahead of its checkpoints (a batch recorded, its line not yet appended): nothing wrong.
    expect(await checkpointMismatch(index, 'act_X', 3, entries(3, 7))).toBeNull();
    expect(await checkpointMismatch(index, 'act_Y', 1, [])).toBeNull();
    expect(index.verifiedSeqs).toEqual([]);
  });

  it('refuses a ledger cut back before a checkpoint, naming the furthest one', async () => {
    const index = indexOf([{ seq: 2 }, { seq: 3 }, { seq: 4 }, { seq: 5 }]);
    expect(await checkpointMismatch(index, 'act_X', 3, entries(3, 3))).toEqual({
      action_id: 'act_X',
      checkpoint: { seq: 5, head: digest(5) },
      ledger: { seq: 3, head: digest(3) },
      problem: expect.stringMatching(
        /^the signed checkpoint at seq 5 \(head .*\) is beyond the ledger, whose newest entry is seq 3 \(head .*\): the ledger was cut/,
      ),
    });
    expect(await checkpointMismatch(index, 'act_X', 4, [])).toMatchObject({
      checkpoint: { seq: 5 },
      ledger: { seq: 3, head: null },
      problem: expect.stringMatching(/which holds no entry from seq 4 on/),
    });
  });

  it('refuses a ledger holding another head at a checkpointed seq', async () => {
    const index = indexOf([{ seq: 3 }, { seq: 4 }]);
    const rewritten = [
      { seq: 3, digest: digest(3) },
      { seq: 4, digest: digest(4, 'ff') },
    ];
    expect(await checkpointMismatch(index, 'act_X', 3, rewritten)).toEqual({
      action_id: 'act_X',
      checkpoint: { seq: 4, head: digest(4) },
      ledger: { seq: 4, head: digest(4, 'ff') },
      problem: expect.stringMatching(/names head .* but the ledger holds .* at seq 4: .*rewritten/),
    });
  });

  it('ignores checkpoints without a valid signature, and those before where it reads', async () => {
    const index = indexOf([{ seq: 1, head: 'other' }, { seq: 3 }, { seq: 9 }], [9]);
    expect(await checkpointMismatch(index, 'act_X', 2, entries(2, 3))).toBeNull();
    expect(index.verifiedSeqs).toEqual([9]);
    const both = indexOf([{ seq: 4 }, { seq: 9 }], [9]);
    expect(await checkpointMismatch(both, 'act_X', 2, entries(2, 3))).toMatchObject({
      checkpoint: { seq: 4 },
    });
    expect(both.verifiedSeqs).toEqual([9, 4]);
  });
});

describe('before a batch is recorded', () => {
  const ledger = (held: { seq: number; digest: string }[]) => {
    const reads: number[] = [];
    return {
      reads,
      entriesFrom: async (_id: string, seq: number) => {
        reads.push(seq);
        return held.filter((entry) => entry.seq >= seq) as ActionLedgerEntry[];
      },
    };
  };

  it('reads nothing when no checkpoint reaches the batch (the common case)', async () => {
    const index = indexOf([{ seq: 2 }, { seq: 3 }]);
    const repo = ledger(entries(1, 3));
    expect(await batchCheckpointMismatch(index, repo, 'act_X', 4)).toBeNull();
    expect(index.refreshes).toBe(1);
    expect(repo.reads).toEqual([]);
  });

  it('reads the ledger when one does: a retry passes, a cut ledger is refused', async () => {
    const index = indexOf([{ seq: 3 }, { seq: 4 }, { seq: 5 }]);
    const retry = ledger(entries(1, 5));
    expect(await batchCheckpointMismatch(index, retry, 'act_X', 4)).toBeNull();
    expect(retry.reads).toEqual([4]);
    const cut = ledger(entries(1, 3));
    expect(await batchCheckpointMismatch(index, cut, 'act_X', 4)).toMatchObject({
      checkpoint: { seq: 5 },
      ledger: { seq: 3, head: null },
    });
  });
});
