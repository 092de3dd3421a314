import type { Collection, Db } from 'mongodb';
import type { Entitlement } from '../auth/families';
import type { TenantStatus } from './organizations.repo';

/** A limits override for one key, one organization or one entitlement class. */
export interface QuotaPolicy {
  _id: string;
  name: string;
  scope: { key_id?: string; organization_id?: string; entitlement?: Entitlement };
  requests_per_minute: number;
  daily_quota: number;
  status: TenantStatus;
  created_at: string;
  updated_at: string;
}

export type QuotaPoliciesRepo = ReturnType<typeof createQuotaPoliciesRepo>;

export function createQuotaPoliciesRepo(db: Db) {
  const col: Collection<QuotaPolicy> = db.collection<QuotaPolicy>('quota_policies');
  return {
    collection: col,
    async ensureIndexes(): Promise<void> {
      await col.createIndex({ status: 1 }, { name: 'by_status' });
    },
    async insert(policy: QuotaPolicy): Promise<QuotaPolicy> {
      await col.insertOne(policy);
      return policy;
    },
    /** Active policies that could apply to a key, newest first. */
    activeFor(key: { _id: string; organization_id: string; entitlement: Entitlement }) {
      return col
        .find({
          status: 'active',
          $or: [
            { 'scope.key_id': key._id },
            { 'scope.organization_id': key.organization_id },
            { 'scope.entitlement': key.entitlement },
          ],
        })
        .sort({ _id: -1 })
        .toArray();
    },
  };
}
