import type { Collection, Db } from 'mongodb';
import { isDuplicateKey } from './mongo';
import type { AccessLayer, Entitlement } from '../auth/families';

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
  /** Seeded from ADMIN_API_KEY rather than minted. */
  bootstrap?: boolean;
  /** Advanced in batches by the request ledger writer. */
  last_used_at?: string;
  created_at: string;
  updated_at: string;
}

export type ApiKeysRepo = ReturnType<typeof createApiKeysRepo>;

export function createApiKeysRepo(db: Db) {
  const col: Collection<ApiKeyRecord> = db.collection<ApiKeyRecord>('api_keys');
  return {
    collection: col,
    async ensureIndexes(): Promise<void> {
      await col.createIndex({ principal_id: 1 }, { name: 'by_principal' });
      await col.createIndex({ organization_id: 1, _id: 1 }, { name: 'by_organization' });
    },
    findById: (id: string) => col.findOne({ _id: id }),
    async insert(record: ApiKeyRecord): Promise<ApiKeyRecord> {
      await col.insertOne(record);
      return record;
    },
    /** Writes a key record whole (bootstrap key seeding is idempotent). */
    async upsert(record: ApiKeyRecord): Promise<void> {
      const { _id, created_at, ...rest } = record;
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
    },
    /** Revokes bootstrap keys other than the current one (ADMIN_API_KEY was changed). */
    async revokeOtherBootstrapKeys(currentId: string, now: string): Promise<void> {
      await col.updateMany(
        { bootstrap: true, _id: { $ne: currentId }, status: { $ne: 'revoked' } },
        { $set: { status: 'revoked', updated_at: now } },
      );
    },
  };
}
