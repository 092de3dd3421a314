import type { KeyListQuery } from '../domain/governance/schemas';
import type { ListFilter } from '../lib/schema';
import { countBy } from './count-by';
import type { Db, Filter } from 'mongodb';
import { insertOnce, isDuplicateKey } from './mongo';
import type { PagePosition } from './paging';
import type { AccessLayer, Entitlement } from '../auth/families';
import { nextVersion, type SealedRecords } from './sealed-records';
import type { RecordSealStamp } from '../signing/record-seal';

export type KeyStatus = 'active' | 'suspended' | 'revoked';

export interface ApiKeyRecord {
  /** The public 12-hex key id. */
  _id: string;
  secret_hash: string;
  /** After a rotation, the previous secret stays valid until `previous_valid_until`. */
  previous_secret_hash?: string;
  previous_valid_until?: string;
  principal_id: string;
  organization_id: string;
  entitlement: Entitlement;
  access_layer: AccessLayer;
  label?: string;
  status: KeyStatus;
  expires_at?: string;
  /** Rotations so far; rotation n is claimed by inserting `<key_id>:<n>` in `api_key_rotations`. */
  rotations?: number;
  /** Seeded from ADMIN_API_KEY rather than minted. */
  bootstrap?: boolean;
  /** One more at every write through the service (sealed with the rest). */
  version?: number;
  /** The record seal over the fields that grant authority (`sealed-records.ts`). */
  seal?: RecordSealStamp;
  created_at: string;
  updated_at: string;
}

/**
 * FerretDB v1 applies an update as a read, a change in memory and a write of the whole
 * document, with no lock between: another control-plane write racing ours (a rotation and a
 * status change of one key at once) can write our fields back. So status and rotation
 * writes are read back after this pause and repeated until they hold. (The request ledger
 * keeps `last_used_at` in `api_key_usage`, not on the key, so use never races them.)
 */
export const KEY_WRITE_SETTLE_MS = 25;
const MAX_KEY_WRITES = 5;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Filters of the key listing. */
export type KeyFilter = ListFilter<KeyListQuery>;

/** The claim of one rotation (`_id` `<key_id>:<n>`): a unique insert, so one rotator wins. */
export interface RotationClaim {
  _id: string;
  key_id: string;
  rotation: number;
  at: string;
}

/** Marks a key revoked for good; status writes check it, so a racing re-activation loses. */
export interface RevocationMark {
  _id: string;
  at: string;
}

/** When a key was last used (`api_key_usage`, written by the request ledger). */
interface KeyUse {
  _id: string;
  last_used_at: string;
}

/** The fields a rotation writes (all of them: the previous secret and the count included). */
export type RotationUpdate = Required<
  Pick<
    ApiKeyRecord,
    'secret_hash' | 'previous_secret_hash' | 'previous_valid_until' | 'rotations' | 'updated_at'
  >
>;

export function createApiKeysRepo(db: Db, sealed: SealedRecords) {
  const col = db.collection<ApiKeyRecord>('api_keys');
  /** The key when its seal holds; a key changed outside the service is refused (throws). */
  const checked = (key: ApiKeyRecord | null) => sealed.checked('api_keys', key);
  /** `$set` of `changes` to `current`, with the next version and the seal of the result. */
  const resealed = (current: ApiKeyRecord, changes: Partial<ApiKeyRecord>) => {
    const version = nextVersion(current);
    const seal = sealed.stampOf('api_keys', { ...current, ...changes, version });
    return { ...changes, version, seal };
  };
  /** Writes `changes` to `current` re-sealed, and records the version written. */
  const writeResealed = async (
    current: ApiKeyRecord,
    changes: Partial<ApiKeyRecord>,
    filter: Filter<ApiKeyRecord> = { _id: current._id },
  ) => {
    const update = resealed(current, changes);
    const result = await col.updateOne(filter, { $set: update });
    if (result.matchedCount === 1)
      await sealed.written('api_keys', { _id: current._id, ...update });
    return result;
  };
  const holds = (key: ApiKeyRecord) => sealed.problemOf('api_keys', key) === null;
  const rotations = db.collection<RotationClaim>('api_key_rotations');
  const revocations = db.collection<RevocationMark>('api_key_revocations');
  const usage = db.collection<KeyUse>('api_key_usage');
  return {
    /** Keys per status, and `total`. */
    countByStatus: () => countBy(col, 'status'),
    /** Active keys of one organization (what taking it out of service would stop). */
    countActiveIn: (organizationId: string) =>
      col.countDocuments({ organization_id: organizationId, status: 'active' }),
    /** The organization of each key found, by key id. */
    async organizationsOf(keyIds: readonly string[]): Promise<Map<string, string>> {
      const keys = await col
        .find({ _id: { $in: [...keyIds] } }, { projection: { organization_id: 1 } })
        .toArray();
      return new Map(keys.map((key) => [key._id, key.organization_id]));
    },
    /** The key by id; one whose seal fails is refused (`RecordIntegrityError`). */
    findById: async (id: string) => checked(await col.findOne({ _id: id })),
    /**
     * Advances a key's `last_used_at` (the request ledger, once per flush per used key). Its
     * own document, so it never races status or rotation writes; two instances flushing at
     * once may leave the earlier of their times, off by at most one flush interval.
     */
    async touchLastUsed(keyId: string, at: string): Promise<void> {
      try {
        await usage.insertOne({ _id: keyId, last_used_at: at });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        await usage.updateOne(
          { _id: keyId, last_used_at: { $lt: at } },
          { $set: { last_used_at: at } },
        );
      }
    },
    /** `last_used_at` of each of `keyIds` that was ever used (reads by `_id`). */
    async lastUsed(keyIds: readonly string[]): Promise<Map<string, string>> {
      const found = await Promise.all(keyIds.map((id) => usage.findOne({ _id: id })));
      return new Map(found.flatMap((use) => (use ? [[use._id, use.last_used_at]] : [])));
    },
    /** Keys newest first by (`created_at`, `_id`), strictly after `after`; `limit + 1` rows. */
    list(filter: KeyFilter, limit: number, after?: PagePosition) {
      const query: Filter<ApiKeyRecord> = {
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.organization_id ? { organization_id: filter.organization_id } : {}),
        ...(filter.principal_id ? { principal_id: filter.principal_id } : {}),
        ...(filter.entitlement ? { entitlement: filter.entitlement } : {}),
        ...(after
          ? {
              $or: [
                { created_at: { $lt: after.at } },
                { created_at: after.at, _id: { $lt: after.id } },
              ],
            }
          : {}),
      };
      return col
        .find(query)
        .sort({ created_at: -1, _id: -1 })
        .limit(limit + 1)
        .toArray();
    },
    /** Key counts by (entitlement, status) and active keys by layer (`$group` + `$sum` only). */
    async counts() {
      const [byClass, byLayer] = await Promise.all([
        col
          .aggregate<{ _id: { entitlement: Entitlement; status: KeyStatus }; n: number }>([
            {
              $group: {
                _id: { entitlement: '$entitlement', status: '$status' },
                n: { $sum: 1 },
              },
            },
          ])
          .toArray(),
        col
          .aggregate<{ _id: AccessLayer; n: number }>([
            { $match: { status: 'active' } },
            { $group: { _id: '$access_layer', n: { $sum: 1 } } },
          ])
          .toArray(),
      ]);
      return {
        byClass: byClass.map((row) => ({ ...row._id, n: row.n })),
        activeByLayer: new Map(byLayer.map((row) => [row._id, row.n])),
      };
    },
    /**
     * Sets a key's status. Call `markRevoked` before revoking: a write of another status then
     * never outlives a revocation, even when the two race. The write is read back until it
     * holds (see `KEY_WRITE_SETTLE_MS`); a later write by someone else wins.
     */
    async setStatus(id: string, status: KeyStatus, now: string): Promise<void> {
      let target = status;
      // A key changed outside the service is refused, not re-sealed by a status change.
      let current = await checked(await col.findOne({ _id: id }));
      for (let write = 0; write < MAX_KEY_WRITES; write += 1) {
        if (!current) return;
        // FerretDB's conditional update is no compare-and-set: a revocation racing this
        // write marked the key first, so `revoked` wins whichever write lands last.
        if (target !== 'revoked' && (await this.isMarkedRevoked(id))) target = 'revoked';
        await writeResealed(current, { status: target, updated_at: now });
        await sleep(KEY_WRITE_SETTLE_MS);
        const stored = await col.findOne({ _id: id });
        if (!stored || stored.updated_at > now) return; // gone, or changed again since
        current = stored;
        // Undone, or sealed over fields a racing write changed since: again, from what is there.
        if (stored.status !== target || stored.updated_at < now || !holds(stored)) continue;
        if (target === 'revoked' || !(await this.isMarkedRevoked(id))) return;
      }
      throw new Error(`the status write of key ${id} did not hold after ${MAX_KEY_WRITES} tries`);
    },
    /** Records a revocation for good, before its status write (idempotent). */
    async markRevoked(id: string, now: string): Promise<void> {
      try {
        await revocations.insertOne({ _id: id, at: now });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    },
    isMarkedRevoked: async (id: string) => (await revocations.findOne({ _id: id })) !== null,
    /** Claims rotation `n` of a key; false when another rotation holds that number. */
    async claimRotation(keyId: string, n: number, now: string): Promise<boolean> {
      return insertOnce(rotations, { _id: `${keyId}:${n}`, key_id: keyId, rotation: n, at: now });
    },
    findRotationClaim: (keyId: string, n: number) => rotations.findOne({ _id: `${keyId}:${n}` }),
    /**
     * Writes a claimed rotation unless a later one is already written, reading it back until
     * it holds (see `KEY_WRITE_SETTLE_MS`); true when written.
     */
    async applyRotation(keyId: string, update: RotationUpdate): Promise<boolean> {
      let current = await checked(await col.findOne({ _id: keyId }));
      for (let write = 0; write < MAX_KEY_WRITES; write += 1) {
        if (!current) return write > 0;
        const result = await writeResealed(current, update, {
          _id: keyId,
          $or: [
            { rotations: { $exists: false } },
            { rotations: { $lt: update.rotations } },
            // A retry re-seals its own rotation over what a racing write left.
            ...(write > 0 ? [{ rotations: update.rotations }] : []),
          ],
        });
        if (result.matchedCount !== 1) return write > 0;
        await sleep(KEY_WRITE_SETTLE_MS);
        const stored = await col.findOne({ _id: keyId });
        const rotations = stored?.rotations ?? 0;
        if (!stored || rotations > update.rotations) return true; // a later rotation followed
        if (
          rotations === update.rotations &&
          stored.secret_hash === update.secret_hash &&
          holds(stored)
        ) {
          return true;
        }
        current = stored;
      }
      throw new Error(`the rotation of key ${keyId} did not hold after ${MAX_KEY_WRITES} tries`);
    },
    async insert(record: ApiKeyRecord): Promise<ApiKeyRecord> {
      const stored = sealed.sealed('api_keys', { ...record, version: record.version ?? 1 });
      await col.insertOne(stored);
      await sealed.written('api_keys', stored);
      return stored;
    },
    /**
     * Writes a key record whole, sealed at the next version (bootstrap key seeding is
     * idempotent: the configuration's key is the authority, whatever the stored one was).
     */
    async upsert(record: ApiKeyRecord): Promise<void> {
      const existing = await col.findOne({ _id: record._id });
      const { _id, created_at, ...rest } = sealed.sealed('api_keys', {
        ...record,
        version: nextVersion(existing ?? {}),
      });
      try {
        await col.updateOne(
          { _id },
          { $set: rest, $setOnInsert: { created_at } },
          { upsert: true },
        );
      } catch (error) {
        // FerretDB: concurrent upserts of one _id can collide; the record is then there.
        if (!isDuplicateKey(error)) throw error;
        await col.updateOne({ _id }, { $set: rest });
      }
      await sealed.written('api_keys', { _id, ...rest });
    },
    /** Revokes bootstrap keys other than the current one (ADMIN_API_KEY was changed). */
    async revokeOtherBootstrapKeys(currentId: string, now: string): Promise<void> {
      const others = await col
        .find({ bootstrap: true, _id: { $ne: currentId }, status: { $ne: 'revoked' } })
        .toArray();
      // Sealed as revoked whatever they held: a revoked key grants nothing.
      for (const key of others) await writeResealed(key, { status: 'revoked', updated_at: now });
    },
  };
}

export type ApiKeysRepo = ReturnType<typeof createApiKeysRepo>;
