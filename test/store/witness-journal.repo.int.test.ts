import type { Db } from 'mongodb';
import { connectMongo } from '../../src/store/mongo';
import {
  createWitnessJournalRepo,
  type JournalChange,
  type JournalEntry,
  type JournalTail,
  RECORDS_PER_SLOT,
  SLOTS_KEPT,
} from '../../src/store/witness-journal.repo';
import { freshDbName } from '../helpers/test-app';
import { testMongoUri } from '../test-env';

const uri = testMongoUri();

const step = (id: string): JournalChange => ({ kind: 'step', record: { _id: id } });
const entriesOf = (tail: JournalTail): JournalEntry[] => {
  if (!tail.complete) throw new Error('expected a complete tail');
  return tail.entries;
};

const slotCount = (db: Db) => db.collection('witness_slots').countDocuments();
const payloadCount = (db: Db) => db.collection('witness_payloads').countDocuments();
/** Polls `done` for up to 5 s (background work). */
async function until(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await done()) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('witness journal', () => {
  it('fills slots 1, 2, 3, … without gaps or losses when three processes append at once', async () => {
    const dbName = freshDbName('witness_journal');
    const processes = await Promise.all([1, 2, 3].map(() => connectMongo(uri, dbName)));
    try {
      const journals = processes.map(({ db }) => createWitnessJournalRepo(db));
      expect(await journals[0].head()).toBe(0);
      expect(entriesOf(await journals[0].after(0))).toEqual([]);

      const written = journals.flatMap((journal, p) =>
        Array.from({ length: 15 }, (_, i) => `p${p}-${i}`).map((id) => ({ journal, id })),
      );
      await Promise.all(written.map(({ journal, id }) => journal.append([step(id)])));

      // A reader that starts now finds every record exactly once, in gap-free slots.
      const reader = createWitnessJournalRepo(processes[0].db);
      const head = await reader.head();
      const slots = entriesOf(await reader.after(0));
      expect(slots.map((slot) => slot.slot)).toEqual(Array.from({ length: head }, (_, i) => i + 1));
      const ids = slots.flatMap((slot) => slot.records.map((r) => r.record._id));
      expect(ids.sort()).toEqual(written.map((w) => w.id).sort());
      // Appends waiting for a write share the next slot: fewer slots than appends.
      expect(head).toBeLessThan(written.length);

      // Nothing new: nothing read; something new: only it.
      expect(entriesOf(await reader.after(head))).toEqual([]);
      await journals[2].append([step('late')]);
      const late = entriesOf(await reader.after(head));
      expect(late.flatMap((slot) => slot.records)).toEqual([step('late')]);
      expect(late.map((slot) => slot.slot)).toEqual([head + 1]);
    } finally {
      await Promise.all(processes.map(({ client }) => client.close()));
    }
  });

  it('writes appends made together (callers settled at once) into one slot', async () => {
    const { client, db } = await connectMongo(uri, freshDbName('witness_journal_together'));
    try {
      const journal = createWitnessJournalRepo(db);
      await Promise.all(Array.from({ length: 10 }, (_, i) => journal.append([step(`t${i}`)])));
      const slots = entriesOf(await journal.after(0));
      expect(slots).toHaveLength(1);
      expect(slots[0].records).toHaveLength(10);
    } finally {
      await client.close();
    }
  });

  it('splits a batch larger than one slot holds, keeping every record', async () => {
    const { client, db } = await connectMongo(uri, freshDbName('witness_journal_big'));
    try {
      const journal = createWitnessJournalRepo(db);
      const count = 2 * RECORDS_PER_SLOT + 50;
      const records = Array.from({ length: count }, (_, i) => step(`s${i}`));
      await journal.append(records);
      const slots = entriesOf(await journal.after(0));
      expect(slots.map((slot) => slot.records.length)).toEqual([
        RECORDS_PER_SLOT,
        RECORDS_PER_SLOT,
        50,
      ]);
      expect(slots.flatMap((slot) => slot.records)).toEqual(records);
    } finally {
      await client.close();
    }
  });

  it('tells a reader whose slots are gone, or who is ahead of a restarted journal, to fold again', async () => {
    const { client, db } = await connectMongo(uri, freshDbName('witness_journal_gone'));
    try {
      const journal = createWitnessJournalRepo(db);
      for (let i = 0; i < 4; i += 1) await journal.append([step(`s${i}`)]);
      expect(await journal.after(4)).toEqual({ complete: true, entries: [] });
      // A journal started again (its collections dropped) is behind slot 4.
      await db.dropCollection('witness_slots');
      const fresh = createWitnessJournalRepo(db);
      await fresh.append([step('again')]);
      expect(await fresh.after(4)).toEqual({ complete: false });
      // Slots 1 and 2 removed (only the newest are kept): a reader at 0 has missed them.
      for (let i = 0; i < 3; i += 1) await fresh.append([step(`t${i}`)]);
      await db
        .collection('witness_slots')
        .deleteMany({ _id: { $in: ['000000000001', '000000000002'] } as never });
      const reader = () => createWitnessJournalRepo(db);
      expect(await reader().after(0)).toEqual({ complete: false });
      expect(entriesOf(await reader().after(2)).map((slot) => slot.slot)).toEqual([3, 4]);
    } finally {
      await client.close();
    }
  });

  it('keeps only the newest slots, removing older ones as it goes', async () => {
    const { client, db } = await connectMongo(uri, freshDbName('witness_journal_trim'));
    try {
      // Slots are removed only once 15 s old; here at once.
      const journal = createWitnessJournalRepo(db, { slotMinAgeMs: 0, trimIntervalMs: 0 });
      // Every other slot has a payload of its own (more changes than a claim holds).
      const changes = (i: number) =>
        i % 2 === 0 ? [step(`s${i}`)] : Array.from({ length: 20 }, (_, k) => step(`s${i}-${k}`));
      for (let i = 0; i < SLOTS_KEPT + 40; i += 1) await journal.append(changes(i));
      const head = await journal.head();
      expect(head).toBe(SLOTS_KEPT + 40);
      // Writers trim in the background, one trim at a time.
      await until(async () => (await slotCount(db)) <= SLOTS_KEPT + 32);
      expect(await slotCount(db)).toBeLessThanOrEqual(SLOTS_KEPT + 32);
      // The payloads of removed slots go with them (by `_id`).
      const withPayload = async () =>
        (
          await db
            .collection('witness_slots')
            .find({ payload_id: { $exists: true } })
            .toArray()
        ).length;
      await until(async () => (await payloadCount(db)) <= (await withPayload()));
      expect(await payloadCount(db)).toBe(await withPayload());
      expect(await withPayload()).toBeGreaterThan(0);
      expect(await createWitnessJournalRepo(db).after(0)).toEqual({ complete: false });
      expect(entriesOf(await createWitnessJournalRepo(db).after(head - 10))).toHaveLength(10);
      // Slots younger than the minimum age stay, however many.
      const young = createWitnessJournalRepo(db);
      for (let i = 0; i < 40; i += 1) await young.append([step(`y${i}`)]);
      expect(await db.collection('witness_slots').countDocuments()).toBeGreaterThanOrEqual(
        SLOTS_KEPT + 40,
      );
      // Once old enough, a reader's full read trims a table a burst of writes left large
      // (in the background: the read itself does not wait for it).
      const reader = createWitnessJournalRepo(db, { slotMinAgeMs: 0, trimIntervalMs: 0 });
      expect(entriesOf(await reader.after(await reader.head()))).toEqual([]);
      await until(async () => (await slotCount(db)) <= SLOTS_KEPT);
      expect(await slotCount(db)).toBeLessThanOrEqual(SLOTS_KEPT);
    } finally {
      await client.close();
    }
  });
  it('a writer idle while the slots after its last one were removed claims after the head, not a removed slot', async () => {
    const { client, db } = await connectMongo(uri, freshDbName('witness_journal_idle_writer'));
    try {
      const options = { slotMinAgeMs: 200, trimIntervalMs: 0 };
      const idle = createWitnessJournalRepo(db, options);
      const busy = createWitnessJournalRepo(db, options);
      await idle.append([step('first')]);
      for (let i = 0; i < SLOTS_KEPT + 40; i += 1) await busy.append([step(`b${i}`)]);
      const slotTwoGone = async () =>
        (await db.collection('witness_slots').countDocuments({ _id: '000000000002' as never })) ===
        0;
      // Old enough now: the busy writer's next trims remove the early slots.
      await new Promise((resolve) => setTimeout(resolve, 250));
      for (let i = 0; i < 40 && !(await slotTwoGone()); i += 1) {
        await busy.append([step(`c${i}`)]);
      }
      await until(slotTwoGone);
      expect(await slotTwoGone()).toBe(true);
      const reader = createWitnessJournalRepo(db);
      const head = await reader.head();
      await idle.append([step('late')]);
      const records = entriesOf(await reader.after(head)).flatMap((entry) => entry.records);
      expect(records).toEqual([step('late')]);
      expect(await slotTwoGone()).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('removes a payload whose claim never came (its writer died) on its first trim', async () => {
    const { client, db } = await connectMongo(uri, freshDbName('witness_journal_orphan'));
    try {
      const longAgo = new Date(Date.now() - 3_600_000).toISOString();
      await db
        .collection<{ _id: string; at: string; records: JournalChange[] }>('witness_payloads')
        .insertOne({ _id: 'orphan', at: longAgo, records: [step('lost')] });
      const journal = createWitnessJournalRepo(db, { slotMinAgeMs: 0, trimIntervalMs: 0 });
      for (let i = 0; i < SLOTS_KEPT + 32; i += 1) await journal.append([step(`s${i}`)]);
      await until(
        async () =>
          (await db.collection('witness_payloads').findOne({ _id: 'orphan' as never })) === null,
      );
      expect(
        await db.collection('witness_payloads').findOne({ _id: 'orphan' as never }),
      ).toBeNull();
    } finally {
      await client.close();
    }
  });
  it('holds a few changes in the claim, more in a payload, many packed; reads payloads of old', async () => {
    const { client, db } = await connectMongo(uri, freshDbName('witness_journal_formats'));
    try {
      const journal = createWitnessJournalRepo(db);
      const change = { kind: 'event', record: { _id: 'e1', at: new Date(0), n: 1.5, none: null } };
      const some = Array.from({ length: 20 }, (_, i) => step(`some${i}`));
      const many = Array.from({ length: 100 }, (_, i) => step(`many${i}`));
      await journal.append([change]);
      await journal.append(some);
      await journal.append(many);
      const claims = await db.collection('witness_slots').find({}).sort({ _id: 1 }).toArray();
      expect(claims[0]).toMatchObject({ records: [change] });
      expect(claims[0]).not.toHaveProperty('payload_id');
      const payload = (id: unknown) =>
        db.collection('witness_payloads').findOne({ _id: id as never });
      expect(await payload(claims[1]['payload_id'])).toMatchObject({ records: some });
      const packed = await payload(claims[2]['payload_id']);
      expect(packed).toHaveProperty('packed');
      expect(packed).not.toHaveProperty('records');
      // A payload of the shape written before claims held changes, claimed as slot 4.
      await db
        .collection<{ _id: string; at: string; records: JournalChange[] }>('witness_payloads')
        .insertOne({ _id: 'old', at: new Date().toISOString(), records: [step('s-old')] });
      await db
        .collection<{ _id: string; payload_id: string; at: string }>('witness_slots')
        .insertOne({ _id: '000000000004', payload_id: 'old', at: new Date().toISOString() });
      const slots = entriesOf(await createWitnessJournalRepo(db).after(0));
      expect(slots.map((slot) => slot.records)).toEqual([[change], some, many, [step('s-old')]]);
    } finally {
      await client.close();
    }
  });
});
