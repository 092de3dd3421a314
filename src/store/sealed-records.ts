import { RecordIntegrityError } from '../lib/errors';
import type { RecordSeal, RecordSealStamp } from '../signing/record-seal';

/**
 * The records that grant or limit authority, sealed with the record seal key
 * (`src/signing/record-seal.ts`) when the service writes them and checked where they are
 * used: a record changed or inserted outside the service is refused, never repaired
 * (docs/approvals.md, "Threat model").
 */
export type SealedCollection =
  | 'api_keys'
  | 'principals'
  | 'organizations'
  | 'approver_keys'
  | 'approval_rules'
  | 'quota_policies'
  | 'action_ends';

/**
 * The fields each seal covers: every field that grants or limits authority, and `version`
 * (every write through the service bumps it). `all` seals every field but the bookkeeping
 * ones. Fields a seal leaves out are never read to decide authority: a key's label, a
 * principal's name and e-mail, an approver key's use counter and last use.
 */
const SEALED_FIELDS: Record<SealedCollection, readonly string[] | 'all'> = {
  api_keys: [
    'principal_id',
    'organization_id',
    'entitlement',
    'access_layer',
    'status',
    'expires_at',
    'secret_hash',
    'previous_secret_hash',
    'previous_valid_until',
    'rotations',
    'bootstrap',
    'version',
  ],
  principals: ['organization_id', 'role', 'status', 'version'],
  organizations: ['name_key', 'status', 'version'],
  approver_keys: [
    'principal_id',
    'kind',
    'public_key',
    'credential_id',
    'status',
    'revoked_at',
    'version',
  ],
  approval_rules: 'all',
  quota_policies: 'all',
  action_ends: ['status', 'seq', 'digest'],
};

/** Never sealed: the seal itself, and when the record was written. */
const BOOKKEEPING = new Set(['_id', 'seal', 'created_at', 'updated_at']);

/** What each collection's record is called in a refusal. */
const RECORD_NAMES: Record<SealedCollection, string> = {
  api_keys: 'API key',
  principals: 'principal',
  organizations: 'organization',
  approver_keys: 'approver key',
  approval_rules: 'approval rule',
  quota_policies: 'quota policy',
  action_ends: 'end record of action',
};

/** The fields of `record` a seal of `collection` covers (absent ones as null). */
export function sealedFieldsOf(
  collection: SealedCollection,
  record: Record<string, unknown>,
): Record<string, unknown> {
  const names = SEALED_FIELDS[collection];
  const fields: Record<string, unknown> = {};
  if (names === 'all') {
    for (const [name, value] of Object.entries(record)) {
      if (!BOOKKEEPING.has(name) && value !== undefined) fields[name] = value;
    }
  } else {
    for (const name of names) fields[name] = record[name] ?? null;
  }
  return fields;
}

/** A record whose seal failed, as reported (a security event, a metric, a log line). */
export interface IntegrityFailure {
  collection: SealedCollection;
  record_id: string;
  problem: string;
}

/**
 * The versions the service wrote, kept outside the database (signed checkpoint lines), so a
 * record restored whole from an earlier copy, seal and all, is told apart from the current
 * one: the record's `version` is behind what the service wrote.
 */
export interface RecordVersions {
  /** Appends the claim that the service wrote this version of the record. */
  written(collection: SealedCollection, id: string, version: number, mac: string): Promise<void>;
  /** The newest version the service wrote of it, by a valid claim, when above `version`. */
  newerThan(collection: SealedCollection, id: string, version: number): Promise<number | null>;
}

export interface SealedRecords {
  /** The id of the key records are sealed with now. */
  keyId: string;
  /** The record with its seal (over its fields as given: set `version` first). */
  sealed<T extends { _id: string }>(
    collection: SealedCollection,
    record: T,
  ): T & { seal: RecordSealStamp };
  /** The seal alone, for a partial write of a record whose whole new state is `record`. */
  stampOf<T extends { _id: string }>(collection: SealedCollection, record: T): RecordSealStamp;
  /** Why the record's seal does not hold, or null. */
  problemOf<T extends { _id: string }>(collection: SealedCollection, record: T): string | null;
  /**
   * The record when its seal holds and it is not behind a version the service wrote (or
   * null when absent); throws `RecordIntegrityError`, reporting the failure.
   */
  checked<T extends { _id: string }>(
    collection: SealedCollection,
    record: T | null,
  ): Promise<T | null>;
  /** Why the record is not to be used (seal, then version), or null; reports nothing. */
  currentProblem<T extends { _id: string }>(
    collection: SealedCollection,
    record: T,
  ): Promise<string | null>;
  /** Records that the service wrote this record as it is now (after the write). */
  written<T extends { _id: string; version?: number; seal?: RecordSealStamp }>(
    collection: SealedCollection,
    record: T,
  ): Promise<void>;
  /** Whether the record is sealed by an accepted key that is not the current one. */
  byPreviousKey(record: { seal?: unknown }): boolean;
  /** The failures reported so far go to the process's reporter (set once at start-up). */
  report(failure: IntegrityFailure): void;
}

/**
 * Seals and checks the records of one process. `onFailure` reports each refused record
 * (the api and the worker pass their security event reporter); it must not throw.
 */
export function createSealedRecords(
  seal: RecordSeal,
  onFailure: (failure: IntegrityFailure) => void = () => undefined,
  versions?: RecordVersions,
): SealedRecords {
  const fieldsOf = (collection: SealedCollection, record: { _id: string }) =>
    sealedFieldsOf(collection, record);
  const problemOf = (collection: SealedCollection, record: { _id: string }) =>
    seal.problem(
      collection,
      record._id,
      fieldsOf(collection, record),
      (record as { seal?: unknown }).seal,
    );
  const rolledBack = async (collection: SealedCollection, record: { _id: string }) => {
    if (!versions || collection === 'action_ends') return null;
    const version = (record as { version?: number }).version ?? 0;
    const newer = await versions.newerThan(collection, record._id, version);
    return newer === null
      ? null
      : `it is version ${version}, but the service wrote version ${newer} (an earlier copy, restored)`;
  };
  const currentProblem = async (collection: SealedCollection, record: { _id: string }) =>
    problemOf(collection, record) ?? (await rolledBack(collection, record));
  return {
    keyId: seal.keyId,
    sealed: (collection, record) => ({
      ...record,
      seal: seal.stamp(collection, record._id, fieldsOf(collection, record)),
    }),
    stampOf: (collection, record) =>
      seal.stamp(collection, record._id, fieldsOf(collection, record)),
    problemOf,
    currentProblem,
    async written(collection, record) {
      if (!versions || record.version === undefined || !record.seal) return;
      await versions.written(collection, record._id, record.version, record.seal.mac);
    },
    async checked(collection, record) {
      if (!record) return null;
      const problem = await currentProblem(collection, record);
      if (problem === null) return record;
      onFailure({ collection, record_id: record._id, problem });
      throw new RecordIntegrityError(
        collection,
        record._id,
        problem,
        `${RECORD_NAMES[collection]} ${record._id}`,
      );
    },
    byPreviousKey: (record) => seal.byPreviousKey(record.seal),
    report: (failure) => onFailure(failure),
  };
}

/** The version a write through the service gives a record: one more than it had. */
export const nextVersion = (record: { version?: number | null }): number =>
  (record.version ?? 0) + 1;
