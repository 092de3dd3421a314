import type { PrincipalListQuery } from '../domain/governance/schemas';
import type { ListFilter } from '../lib/schema';
import { countBy } from './count-by';
import { newestByIdPage } from './paging';
import type { Db, Filter } from 'mongodb';
import type { PrincipalRole } from '../auth/auth-context';
import type { TenantStatus } from './organizations.repo';

export interface Principal {
  _id: string;
  name: string;
  email: string;
  /** Lower-cased e-mail; unique, so the same address twice is a conflict. */
  email_key: string;
  organization_id: string;
  role: PrincipalRole;
  status: TenantStatus;
  intended_use?: string;
  created_at: string;
  updated_at: string;
}

/** Filters of the principal listing. */
export type PrincipalFilter = ListFilter<PrincipalListQuery>;

export function createPrincipalsRepo(db: Db) {
  const col = db.collection<Principal>('principals');
  return {
    /** Principals per status, and `total`. */
    countByStatus: () => countBy(col, 'status'),
    findById: (id: string) => col.findOne({ _id: id }),
    findByEmail: (email: string) => col.findOne({ email_key: email.toLowerCase() }),
    /** Inserts; throws a duplicate-key error when the e-mail is taken. */
    async insert(principal: Principal): Promise<Principal> {
      await col.insertOne(principal);
      return principal;
    },
    /** Principals newest first (ULID `_id` descending), after `beforeId`; `limit + 1` rows. */
    list(filter: PrincipalFilter, limit: number, beforeId?: string) {
      const query: Filter<Principal> = {
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.organization_id ? { organization_id: filter.organization_id } : {}),
        ...(filter.role ? { role: filter.role } : {}),
      };
      return newestByIdPage(col, query, limit, beforeId);
    },
    async setStatus(id: string, status: TenantStatus, now: string): Promise<void> {
      await col.updateOne({ _id: id }, { $set: { status, updated_at: now } });
    },
    async remove(id: string): Promise<void> {
      await col.deleteOne({ _id: id });
    },
  };
}

export type PrincipalsRepo = ReturnType<typeof createPrincipalsRepo>;
