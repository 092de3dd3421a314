import { countBy } from './count-by';
import type { Db } from 'mongodb';
import { newId } from '../lib/ids';
import { isDuplicateKey } from './mongo';
import type { SealedRecords } from './sealed-records';
import { tenantRecords, type TenantRecord, type TenantStatus } from './tenant-records';

export type { TenantStatus } from './tenant-records';

/** A tenant: principals, their keys and projects each belong to one. */
export interface Organization extends TenantRecord {
  name: string;
  /** Lower-cased name; unique, so names never collide case-insensitively. */
  name_key: string;
}

/** Organizations every installation has. */
export const SANDBOX_ORGANIZATION = 'sandbox';
export const OPERATORS_ORGANIZATION = 'operators';

/** A new active organization named `name`. */
export const newOrganization = (name: string, now: string): Organization => ({
  _id: newId('org'),
  name,
  name_key: name.toLowerCase(),
  status: 'active',
  created_at: now,
  updated_at: now,
});

export function createOrganizationsRepo(db: Db, sealed: SealedRecords) {
  const col = db.collection<Organization>('organizations');
  const records = tenantRecords<Organization, { status?: TenantStatus }>(
    col,
    { status: 'status' },
    { records: sealed, collection: 'organizations' },
  );
  return {
    ...records,
    /** Organizations per status, and `total`. */
    countByStatus: () => countBy(col, 'status'),
    findByName: (name: string) => col.findOne({ name_key: name.toLowerCase() }),
    /** Finds or creates a well-known organization; safe when several instances race. */
    async ensure(name: string, now: string): Promise<Organization> {
      const existing = await col.findOne({ name_key: name.toLowerCase() });
      if (existing) return existing;
      try {
        return await records.insert(newOrganization(name, now));
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        const winner = await col.findOne({ name_key: name.toLowerCase() });
        if (!winner) throw error;
        return winner;
      }
    },
  };
}

export type OrganizationsRepo = ReturnType<typeof createOrganizationsRepo>;
