import { testSealedRecords } from '../helpers/sealed-records';
import { Collection, MongoClient } from 'mongodb';
import { createRepos } from '../../src/store';

// Repositories expose methods, never their collections (docs/architecture.md): a caller that
// held a collection could write around the repository's invariants.
describe('every repository', () => {
  it('hands out methods and plain values, not collections', () => {
    const client = new MongoClient('mongodb://127.0.0.1:1/', { serverSelectionTimeoutMS: 1 });
    const repos = createRepos(client.db('never_connected'), testSealedRecords());
    const exposed = Object.entries(repos).flatMap(([repo, members]) =>
      Object.entries(members as Record<string, unknown>)
        .filter(([, value]) => value instanceof Collection)
        .map(([member]) => `${repo}.${member}`),
    );
    expect(Object.keys(repos).length).toBeGreaterThan(20);
    expect(exposed).toEqual([]);
  });
});
