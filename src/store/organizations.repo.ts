import { countBy } from './count-by';
import { newestByIdPage } from './paging';
import type { Db, Filter } from 'mongodb';
import { newId } from '../lib/ids';
import { isDuplicateKey } from './mongo';

export type TenantStatus = 'active' | 'suspended' | 'archived';

export interface Organization {
  _id: string;
  name: string;
  /** Lower-cased name; unique, so names never collide case-insensitively. */
  name_key: string;
  status: TenantStatus;
  created_at: string;
  updated_at: string;
}

/** Organizations every installation has. */
export const SANDBOX_ORGANIZATION = 'sandbox';
export const OPERATORS_ORGANIZATION = 'operators';

export function createOrganizationsRepo(db: Db) {
  const col = db.collection<Organization>('organizations');
  return {
    /** Organizations per status, and `total`. */
    countByStatus: () => countBy(col, 'status'),
    findById: (id: string) => col.findOne({ _id: id }),
    findByName: (name: string) => col.findOne({ name_key: name.toLowerCase() }),
    /** Organizations newest first (ULID `_id` descending), after `beforeId`; `limit + 1` rows. */
    list(filter: { status?: TenantStatus }, limit: number, beforeId?: string) {
      const query: Filter<Organization> = {
        ...(filter.status ? { status: filter.status } : {}),
      };
      return newestByIdPage(col, query, limit, beforeId);
    },
    async setStatus(id: string, status: TenantStatus, now: string): Promise<void> {
      await col.updateOne({ _id: id }, { $set: { status, updated_at: now } });
    },
    async insert(name: string, now: string): Promise<Organization> {
      const org: Organization = {
        _id: newId('org'),
        name,
        name_key: name.toLowerCase(),
        status: 'active',
        created_at: now,
        updated_at: now,
      };
      await col.insertOne(org);
      return org;
    },
    /** Finds or creates a well-known organization; safe when several instances race. */
    async ensure(name: string, now: string): Promise<Organization> {
      const existing = await col.findOne({ name_key: name.toLowerCase() });
      if (existing) return existing;
      try {
        return await this.insert(name, now);
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
