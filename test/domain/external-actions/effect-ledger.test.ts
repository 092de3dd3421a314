import { effectLedgerProblem } from '../../../src/domain/external-actions/effect-ledger';
import type { ActionLedgerEntry } from '../../../src/store/external-actions.repo';
import type { ActionState } from '../../../src/workflows/external-action.contract';

const entry = (seq: number, event: string, status: string): ActionLedgerEntry =>
  ({ _id: `act_X:${seq}`, seq, event, status, digest: `d${seq}` }) as ActionLedgerEntry;
const state = { action_id: 'act_X', seq: 4, ledger_head: 'd4' } as ActionState;
const problemWith = (ledger: ActionLedgerEntry[]) =>
  effectLedgerProblem(
    { entriesFrom: async (_id, seq) => ledger.filter((e) => e.seq >= seq) },
    state,
  );

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
});
