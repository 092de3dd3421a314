import { connectMongo } from '../../src/store/mongo';
import { createWitnessJournalRepo, type JournalRecord } from '../../src/store/witness-journal.repo';
import { freshDbName } from '../helpers/test-app';

const uri = process.env['TEST_MONGODB_URI']!;

const step = (id: string): JournalRecord => ({ kind: 'step', record: { _id: id } });

describe('witness journal', () => {
  it('fills slots 1, 2, 3, … without gaps or losses when three processes append at once', async () => {
    const dbName = freshDbName('witness_journal');
    const processes = await Promise.all([1, 2, 3].map(() => connectMongo(uri, dbName)));
    try {
      const journals = processes.map(({ db }) => createWitnessJournalRepo(db));
      expect(await journals[0].head()).toBe(0);
      expect(await journals[0].after(0)).toEqual([]);

      const written = journals.flatMap((journal, p) =>
        Array.from({ length: 15 }, (_, i) => `p${p}-${i}`).map((id) => ({ journal, id })),
      );
      await Promise.all(written.map(({ journal, id }) => journal.append([step(id)])));

      // A reader that starts now finds every record exactly once, in gap-free slots.
      const reader = createWitnessJournalRepo(processes[0].db);
      const head = await reader.head();
      const slots = await reader.after(0);
      expect(slots.map((slot) => Number(slot._id))).toEqual(
        Array.from({ length: head }, (_, i) => i + 1),
      );
      const ids = slots.flatMap((slot) => slot.records.map((r) => r.record._id));
      expect(ids.sort()).toEqual(written.map((w) => w.id).sort());
      // Appends waiting for a write share the next slot: fewer slots than appends.
      expect(head).toBeLessThan(written.length);

      // Nothing new: one read says so; something new: only it is read.
      expect(await reader.after(head)).toEqual([]);
      await journals[2].append([step('late')]);
      const late = await reader.after(head);
      expect(late.flatMap((slot) => slot.records)).toEqual([step('late')]);
    } finally {
      await Promise.all(processes.map(({ client }) => client.close()));
    }
  });

  it('splits a batch larger than one slot holds, keeping every record', async () => {
    const { client, db } = await connectMongo(uri, freshDbName('witness_journal_big'));
    try {
      const journal = createWitnessJournalRepo(db);
      await journal.append(Array.from({ length: 4_500 }, (_, i) => step(`s${i}`)));
      const slots = await journal.after(0);
      expect(slots.map((slot) => slot.records.length)).toEqual([2_000, 2_000, 500]);
    } finally {
      await client.close();
    }
  });
});
