import type { Db } from 'mongodb';
import { sealedRecordsOf } from '../../src/domain/record-integrity';
import type { SealedCollection, SealedRecords } from '../../src/store/sealed-records';
import { TEST_LEDGER_SEAL_KEY, TEST_PEPPER } from './test-app';

/**
 * The record seal test apps and workers use (their configuration's, derived from the test
 * ledger seal key), for tests that build repositories of their own over a test database.
 */
export const testSealedRecords = (): SealedRecords =>
  sealedRecordsOf({ ledgerSealKey: TEST_LEDGER_SEAL_KEY, keyPepper: TEST_PEPPER }, () => undefined);

/**
 * Changes a sealed record as a process of the service would (another instance, say): the
 * fields set and unset, the next version, and a fresh seal. Not what a database holder can
 * do, who has no seal key.
 */
export async function writeAsTheService(
  db: Db,
  collection: SealedCollection,
  id: string,
  set: Record<string, unknown>,
  unset: readonly string[] = [],
): Promise<void> {
  const col = db.collection<{ _id: string; version?: number }>(collection);
  const stored = await col.findOne({ _id: id });
  if (!stored) throw new Error(`${collection} ${id} is not there`);
  const next: Record<string, unknown> = { ...stored, ...set, version: (stored.version ?? 0) + 1 };
  for (const field of unset) delete next[field];
  const { seal } = testSealedRecords().sealed(collection, next as { _id: string });
  await col.updateOne(
    { _id: id },
    {
      $set: { ...set, version: next['version'] as number, seal },
      ...(unset.length ? { $unset: Object.fromEntries(unset.map((f) => [f, ''])) } : {}),
    },
  );
}
