import type { CheckpointIndex } from '../../../src/domain/external-actions/checkpoint-index';
import { effectLedgerProblem } from '../../../src/domain/external-actions/effect-ledger';
import type { ActionLedgerEntry } from '../../../src/store/external-actions.repo';
import type { ActionState } from '../../../src/workflows/external-action.contract';

const entry = (seq: number, event: string, status: string): ActionLedgerEntry =>
  ({ _id: `act_X:${seq}`, seq, event, status, digest: `d${seq}` }) as ActionLedgerEntry;
const state = { action_id: 'act_X', seq: 4, ledger_head: 'd4' } as ActionState;
const refusalWith = (ledger: ActionLedgerEntry[], checkpoints?: CheckpointIndex) =>
  effectLedgerProblem(
    { entriesFrom: async (_id, seq) => ledger.filter((e) => e.seq >= seq) },
    state,
    checkpoints,
  );
const problemWith = async (ledger: ActionLedgerEntry[]) =>
  (await refusalWith(ledger))?.problem ?? null;
/** Signed checkpoints of act_X at these seqs, each naming `d<seq>`. */
const checkpointsAt = (...seqs: number[]): CheckpointIndex => ({
  refresh: async () => undefined,
  claimsOf: (id) =>
    id === 'act_X'
      ? seqs.map((seq) => ({ action_id: id, seq, head: `d${seq}`, offset: 0, length: 0 }))
      : [],
  verified: async () => true,
});

describe("the effect's reading of the ledger", () => {
  const head = entry(4, 'executing', 'executing');
  it('acts on its own executing head, and past refused decisions recorded after it', async () => {
    expect(await problemWith([head])).toBeNull();
    expect(await problemWith([head, entry(5, 'decision_refused', 'executing')])).toBeNull();
  });

  it('refuses when the action ended after its head, or another transition follows it', async () => {
    expect(await problemWith([head, entry(5, 'aborted', 'aborted')])).toMatch(/already aborted/);
    expect(
      await problemWith([
        head,
        entry(5, 'decision_refused', 'executing'),
        entry(6, 'aborted', 'aborted'),
      ]),
    ).toMatch(/already aborted \(ledger seq 6\)/);
    expect(await problemWith([head, entry(5, 'executing', 'executing')])).toMatch(
      /after the run's head/,
    );
  });

  it("refuses a head that is not the run's", async () => {
    expect(await problemWith([])).toMatch(/no entry at the run's head/);
    expect(await problemWith([{ ...head, digest: 'other' }])).toMatch(/not the run's head/);
    expect(await problemWith([entry(4, 'approved', 'approved')])).toMatch(/not executing/);
  });

  it('refuses first when the ledger was cut back before a signed checkpoint', async () => {
    // The run's head and the ledger agree: only the checkpoints know the ledger went on.
    expect(await refusalWith([head], checkpointsAt(3, 4))).toBeNull();
    expect(await refusalWith([head], checkpointsAt(4, 6))).toEqual({
      problem: expect.stringMatching(/checkpoint at seq 6 .* beyond the ledger.* seq 4/),
      mismatch: expect.objectContaining({
        checkpoint: { seq: 6, head: 'd6' },
        ledger: { seq: 4, head: 'd4' },
      }),
    });
    // Refused decisions recorded while the effect ran, and checkpointed: nothing lost.
    const refused = entry(5, 'decision_refused', 'executing');
    expect(await refusalWith([head, refused], checkpointsAt(4, 5))).toBeNull();
  });
});
