import { createStepLeases, STEP_LEASE_MS } from '../../src/store/step-leases';
import type { JournalChange } from '../../src/store/witness-journal.repo';

/** A journal that records what is appended, each append settling when `release` is called. */
function fakeJournal() {
  const appended: JournalChange[] = [];
  let release: () => void = () => undefined;
  return {
    appended,
    release: () => release(),
    append: jest.fn(
      (records: JournalChange[]) =>
        new Promise<void>((settle) => {
          appended.push(...records);
          release = settle;
        }),
    ),
  };
}

describe('step leases', () => {
  afterEach(() => jest.restoreAllMocks());

  it('journals one lease for the steps that need it at once, and renews it when nearly over', async () => {
    const journal = fakeJournal();
    const leases = createStepLeases(journal);
    const now = 1_000_000;
    jest.spyOn(Date, 'now').mockReturnValue(now);
    const both = Promise.all([leases.ensure('ses_a'), leases.ensure('ses_a')]);
    journal.release();
    expect(await both).toEqual([now + STEP_LEASE_MS, now + STEP_LEASE_MS]);
    expect(journal.appended).toEqual([
      { kind: 'step_lease', record: { _id: 'ses_a', until: now + STEP_LEASE_MS } },
    ]);
    // Well inside the lease: no write.
    jest.spyOn(Date, 'now').mockReturnValue(now + STEP_LEASE_MS / 2 - 1);
    expect(await leases.ensure('ses_a')).toBe(now + STEP_LEASE_MS);
    expect(journal.append).toHaveBeenCalledTimes(1);
    // Less than half left: renewed before the step.
    const later = now + STEP_LEASE_MS / 2 + 1;
    jest.spyOn(Date, 'now').mockReturnValue(later);
    const renewed = leases.ensure('ses_a');
    journal.release();
    expect(await renewed).toBe(later + STEP_LEASE_MS);
    expect(journal.append).toHaveBeenCalledTimes(2);
  });

  it('journals a new lease after a step stored once its lease had ended, and only then', async () => {
    const journal = fakeJournal();
    const leases = createStepLeases(journal);
    const now = 2_000_000;
    jest.spyOn(Date, 'now').mockReturnValue(now);
    await leases.after('ses_a', now + 1);
    expect(journal.append).not.toHaveBeenCalled();
    const after = leases.after('ses_a', now);
    journal.release();
    await after;
    expect(journal.appended).toEqual([
      { kind: 'step_lease', record: { _id: 'ses_a', until: now + STEP_LEASE_MS } },
    ]);
  });
});
