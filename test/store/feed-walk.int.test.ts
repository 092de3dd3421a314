import type { Db, MongoClient } from 'mongodb';
import {
  chainNamed,
  decodeFeedCursor,
  walkChain,
  walkFeed,
  type Verdict,
} from '../../src/store/feed-walk';
import { connectMongo } from '../../src/store/mongo';
import { createSlotFeed, type FeedEntry, type FeedSlot } from '../../src/store/slot-feed';
import { freshDbName } from '../helpers/test-app';
import { feedCursor } from '../../src/lib/cursor';
import { testMongoUri } from '../test-env';

const uri = testMongoUri();

let client: MongoClient;
let db: Db;
let sent = 0;
beforeAll(async () => {
  ({ client, db } = await connectMongo(uri, freshDbName('feed_walk'), {
    onCommand: () => (sent += 1),
  }));
});
afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

let feeds = 0;
/** A feed whose chain `all` lists keys k1…kn, `perSlot` a slot (slot 1 the oldest). */
async function feedOf(count: number, perSlot: number) {
  const feed = createSlotFeed(db.collection<FeedSlot>(`walk_${(feeds += 1)}`));
  for (let start = 1; start <= count; start += perSlot) {
    const keys = Array.from({ length: Math.min(perSlot, count - start + 1) }, (_, i) => start + i);
    // One call: its listings share one slot.
    await feed.record(keys.map((n) => ({ chains: ['all'], entry: { tag: 't', key: `k${n}` } })));
  }
  return feed;
}

/** Judges entries by a set of live keys; `seen` collects every key checked. */
function judge(live: (n: number) => boolean, seen: string[] = []) {
  return async (entries: FeedEntry[]): Promise<Verdict<string>[]> => {
    seen.push(...entries.map((entry) => entry.key));
    return entries.map((entry) =>
      live(Number(entry.key.slice(1))) ? { keep: entry.key } : 'gone',
    );
  };
}

describe('feed walk', () => {
  it('walks newest first, `limit + 1` kept, and goes on from a place exactly', async () => {
    const feed = await feedOf(10, 3);
    const first = await walkFeed({ feed, chain: 'all', limit: 3, check: judge(() => true) });
    expect(first.map((row) => row.record)).toEqual(['k10', 'k9', 'k8', 'k7']);
    const rest = await walkFeed({
      feed,
      chain: 'all',
      limit: 10,
      start: { slot: first[2].slot, index: first[2].index },
      check: judge(() => true),
    });
    expect(rest.map((row) => row.record)).toEqual(['k7', 'k6', 'k5', 'k4', 'k3', 'k2', 'k1']);
  });

  it('skips gone and passed entries; keeps checking until enough are kept or the chain ends', async () => {
    const feed = await feedOf(12, 4);
    const passed = async (entries: FeedEntry[]): Promise<Verdict<string>[]> =>
      entries.map((entry) => {
        const n = Number(entry.key.slice(1));
        if (n % 3 === 0) return 'gone';
        return n % 2 === 0 ? 'passed' : { keep: entry.key };
      });
    const rows = await walkFeed({ feed, chain: 'all', limit: 2, check: passed });
    expect(rows.map((row) => row.record)).toEqual(['k11', 'k7', 'k5']);
    const all = await walkFeed({ feed, chain: 'all', limit: 50, check: passed });
    expect(all.map((row) => row.record)).toEqual(['k11', 'k7', 'k5', 'k1']);
    expect(await walkFeed({ feed, chain: 'nothing', limit: 5, check: passed })).toEqual([]);
  });

  it('compressing: marks a run of slots whose entries are all gone, and the next walk jumps it', async () => {
    const feed = await feedOf(20, 2);
    // k3…k18 gone: slots 2…9 hold only gone entries.
    const live = (n: number) => n <= 2 || n >= 19;
    const slotReads = async (seen: string[]) => {
      const before = sent;
      const rows = await walkFeed({
        feed,
        chain: 'all',
        limit: 5,
        check: judge(live, seen),
        compress: true,
      });
      expect(rows.map((row) => row.record)).toEqual(['k20', 'k19', 'k2', 'k1']);
      return sent - before;
    };
    const firstSeen: string[] = [];
    const first = await slotReads(firstSeen);
    expect(firstSeen).toHaveLength(20);
    expect((await feed.slot('all', 9))?.skip).toBe(1);
    const secondSeen: string[] = [];
    const second = await slotReads(secondSeen);
    expect(secondSeen).toEqual(['k20', 'k19', 'k2', 'k1']);
    expect(second).toBeLessThan(first);
    // Without `compress` nothing is marked or jumped.
    const plain = await feedOf(6, 2);
    await walkFeed({ feed: plain, chain: 'all', limit: 5, check: judge(() => false) });
    for (const slot of [1, 2, 3]) expect((await plain.slot('all', slot))?.skip).toBeUndefined();
  });

  it('walkChain: rows with the position a cursor continues after', async () => {
    const feed = await feedOf(5, 5);
    const chain = chainNamed<'kind'>([['kind', undefined]]);
    expect(chain).toEqual({ kind: 'all', id: 'all' });
    const rows = await walkChain<string, 'kind' | 'all'>({
      feed,
      chain,
      limit: 1,
      check: judge(() => true),
    });
    expect(rows).toEqual([
      { record: 'k5', next: { chain: 'all', slot: 1, index: 4 } },
      { record: 'k4', next: { chain: 'all', slot: 1, index: 3 } },
    ]);
    const after = await walkChain<string, 'kind' | 'all'>({
      feed,
      chain,
      limit: 9,
      after: rows[0].next,
      check: judge(() => true),
    });
    expect(after.map((row) => row.record)).toEqual(['k4', 'k3', 'k2', 'k1']);
  });

  it('chains: the first named kind; cursors: a place in that chain, anything else a 422', () => {
    expect(
      chainNamed([
        ['context', null],
        ['proposer', 'prn_1'],
        ['kind', 'notify'],
      ]),
    ).toEqual({
      kind: 'proposer',
      id: 'proposer:prn_1',
    });
    const format = feedCursor(['all', 'family']);
    const place = { chain: 'family' as const, slot: 3, index: 2 };
    expect(decodeFeedCursor(format, format.encode(place), 'family')).toEqual(place);
    expect(() => decodeFeedCursor(format, format.encode(place), 'all')).toThrow(
      /continues another filter's list \(this one walks `all`\)/,
    );
    for (const forged of ['family~1.5~0', 'family~1~-1', 'family~a~0', 'evt_x', '']) {
      expect(() => decodeFeedCursor(format, forged, 'family')).toThrow(/Invalid cursor: expected/);
    }
  });
});
