import type { PolicyListQuery } from '../domain/governance/schemas';
import type { ListFilter } from '../lib/schema';
import type { Db } from 'mongodb';
import type { Entitlement } from '../auth/families';
import type { SealedRecords } from './sealed-records';
import { tenantRecords, type TenantRecord } from './tenant-records';

/** A limits override for one key, one organization or one entitlement class. */
export interface QuotaPolicy extends TenantRecord {
  name: string;
  scope: { key_id?: string; organization_id?: string; entitlement?: Entitlement };
  requests_per_minute: number;
  daily_quota: number;
  /** Heavy-work limits (docs/governance.md); absent: the next policy that sets it, or the default. */
  concurrent_deployments?: number;
  cell_updates_per_day?: number;
  /** Organization totals; only organization-scoped policies set them. */
  organization_concurrent_deployments?: number;
  organization_cell_updates_per_day?: number;
}

export function createQuotaPoliciesRepo(db: Db, sealed: SealedRecords) {
  const col = db.collection<QuotaPolicy>('quota_policies');
  return {
    ...tenantRecords<QuotaPolicy, ListFilter<PolicyListQuery>>(
      col,
      {
        status: 'status',
        key_id: 'scope.key_id',
        organization_id: 'scope.organization_id',
        entitlement: 'scope.entitlement',
      },
      { records: sealed, collection: 'quota_policies' },
    ),
    /** Active class-scoped policies per entitlement class (`$group` + `$sum`: FerretDB-safe). */
    async activeClassPolicyCounts(): Promise<Map<string, number>> {
      const rows = await col
        .aggregate<{ _id: string; n: number }>([
          { $match: { status: 'active', 'scope.entitlement': { $exists: true } } },
          { $group: { _id: '$scope.entitlement', n: { $sum: 1 } } },
        ])
        .toArray();
      return new Map(rows.map((row) => [row._id, row.n]));
    },
    /**
     * Active policies that could apply to a key, newest first, each checked (one whose seal
     * fails refuses the read: limits are authority, and a policy edited out of scope would
     * leave a looser one in force).
     */
    async activeFor(key: { _id: string; organization_id: string; entitlement: Entitlement }) {
      const policies = await col
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
      return Promise.all(
        policies.map(async (policy) => (await sealed.checked('quota_policies', policy))!),
      );
    },
  };
}

export type QuotaPoliciesRepo = ReturnType<typeof createQuotaPoliciesRepo>;
