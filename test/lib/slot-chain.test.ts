import { newestFilledSlot } from '../../src/lib/slot-chain';

/** A chain with slots 1..filled taken, counting the reads it answers. */
function chain(filled: number) {
  const reads: number[] = [];
  const probe = async (slot: number) => {
    reads.push(slot);
    return slot >= 1 && slot <= filled ? `value ${slot}` : null;
  };
  return { probe, reads };
}

describe('the slot chain', () => {
  it.each([0, 1, 2, 3, 7, 8, 9, 100, 1023, 1024, 1025])(
    'finds the newest of %i filled slots from nothing',
    async (filled) => {
      const { probe } = chain(filled);
      expect(await newestFilledSlot(probe)).toEqual({
        slot: filled,
        value: filled === 0 ? null : `value ${filled}`,
      });
    },
  );

  it('starts from a known filled slot and reads O(log n) slots', async () => {
    const { probe, reads } = chain(1000);
    const found = await newestFilledSlot(probe, { slot: 990, value: 'value 990' });
    expect(found).toEqual({ slot: 1000, value: 'value 1000' });
    expect(reads.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(11)) + 2);
    expect(reads.every((slot) => slot > 990)).toBe(true);
  });

  it('answers the floor itself when nothing follows it', async () => {
    const { probe } = chain(5);
    expect(await newestFilledSlot(probe, { slot: 5, value: 'value 5' })).toEqual({
      slot: 5,
      value: 'value 5',
    });
  });
});
