import type { Collection, Db, MongoClient } from 'mongodb';
import { connectMongo } from '../../src/store/mongo';
import {
  createSlotFeed,
  formatEntries,
  parseEntries,
  slotId,
  type FeedEntry,
  type FeedSlot,
} from '../../src/store/slot-feed';
import { freshDbName } from '../helpers/test-app';
import { testMongoUri } from '../test-env';

const uri = testMongoUri();

let client: MongoClient;
let db: Db;
beforeAll(async () => {
  ({ client, db } = await connectMongo(uri, freshDbName('slot_feed')));
});
afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

let collections = 0;
const freshCollection = (): Collection<FeedSlot> =>
  db.collection<FeedSlot>(`feed_${(collections += 1)}`);
const entry = (n: number): FeedEntry => ({ tag: `t${n}`, key: `k${n}` });

/** Every entry of `chain`, slot 1 up, and the slots' numbers. */
async function chainOf(col: Collection<FeedSlot>, chain: string) {
  const slots = await col.find({ _id: { $regex: `^${chain}/` } }).toArray();
  const numbered = slots
    .map((slot) => ({ n: Number(slot._id.slice(chain.length + 1)), entries: slot.entries }))
    .sort((a, b) => a.n - b.n);
  return {
    slots: numbered.map((slot) => slot.n),
    keys: numbered.flatMap((slot) => parseEntries(slot.entries).map((e) => e.key)),
  };
}

describe('slot feed', () => {
  it('formats and parses entries; a key may hold colons, an empty slot has none', () => {
    const entries = [
      { tag: 'evt_1', key: 'abc' },
      { tag: 'x', key: 'a:b:c' },
    ];
    expect(parseEntries(formatEntries(entries))).toEqual(entries);
    expect(parseEntries('')).toEqual([]);
    expect(slotId('object:o/1', 3)).toBe('object:o/1/3');
  });

  it('lists each record in each of its chains, in order, slots 1, 2, 3 with no gaps', async () => {
    const col = freshCollection();
    const feed = createSlotFeed(col);
    await feed.record([{ chains: ['all', 'a'], entry: entry(1) }]);
    await feed.record([{ chains: ['all', 'b'], entry: entry(2) }]);
    await feed.record([{ chains: ['all', 'a'], entry: entry(3) }]);
    expect(await chainOf(col, 'all')).toEqual({ slots: [1, 2, 3], keys: ['k1', 'k2', 'k3'] });
    expect(await chainOf(col, 'a')).toEqual({ slots: [1, 2], keys: ['k1', 'k3'] });
    expect(await feed.head('all')).toBe(3);
    expect(await feed.head('none')).toBe(0);
    expect(parseEntries((await feed.slot('b', 1))!.entries)).toEqual([entry(2)]);
    expect(await feed.slot('b', 2)).toBeNull();
  });

  it('records queued while a round is written share the next slot', async () => {
    const col = freshCollection();
    const feed = createSlotFeed(col);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => feed.record([{ chains: ['all'], entry: entry(i) }])),
    );
    const { slots, keys } = await chainOf(col, 'all');
    expect(keys).toEqual(Array.from({ length: 30 }, (_, i) => `k${i}`));
    expect(slots.length).toBeLessThan(30);
    expect(slots).toEqual(slots.map((_, i) => i + 1));
  });

  it('several processes claim slots of one chain without a gap or a lost entry; a fresh one finds the head', async () => {
    const col = freshCollection();
    const processes = [createSlotFeed(col), createSlotFeed(col), createSlotFeed(col)];
    await Promise.all(
      processes.map(async (feed, p) => {
        for (let i = 0; i < 12; i += 1) {
          await feed.record([{ chains: ['all'], entry: entry(p * 100 + i) }]);
        }
      }),
    );
    const { slots, keys } = await chainOf(col, 'all');
    expect(slots).toEqual(slots.map((_, i) => i + 1));
    expect([...keys].sort()).toEqual(
      [0, 1, 2].flatMap((p) => Array.from({ length: 12 }, (_, i) => `k${p * 100 + i}`)).sort(),
    );
    // Each process's own entries keep their order.
    for (const p of [0, 1, 2]) {
      const own = keys.filter((key) => Math.floor(Number(key.slice(1)) / 100) === p);
      expect(own).toEqual(Array.from({ length: 12 }, (_, i) => `k${p * 100 + i}`));
    }
    expect(await createSlotFeed(col).head('all')).toBe(slots.length);
  });

  it('a skip mark keeps the lowest of two marks', async () => {
    const col = freshCollection();
    const feed = createSlotFeed(col);
    for (let i = 0; i < 4; i += 1) await feed.record([{ chains: ['all'], entry: entry(i) }]);
    await feed.markSkip('all', 4, 2);
    await feed.markSkip('all', 4, 1);
    await feed.markSkip('all', 4, 3);
    expect((await feed.slot('all', 4))?.skip).toBe(1);
  });
});
