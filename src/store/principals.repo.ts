import type { PrincipalListQuery } from '../domain/governance/schemas';
import type { ListFilter } from '../lib/schema';
import { countBy } from './count-by';
import type { Db } from 'mongodb';
import type { PrincipalRole } from '../auth/auth-context';
import type { SealedRecords } from './sealed-records';
import { tenantRecords, type TenantRecord } from './tenant-records';

/** A person or service that holds keys, in one organization with one role. */
export interface Principal extends TenantRecord {
  name: string;
  email: string;
  /** Lower-cased e-mail; unique, so the same address twice is a conflict. */
  email_key: string;
  organization_id: string;
  role: PrincipalRole;
  intended_use?: string;
}

export function createPrincipalsRepo(db: Db, sealed: SealedRecords) {
  const col = db.collection<Principal>('principals');
  return {
    /** Principals per status, and `total`. */
    countByStatus: () => countBy(col, 'status'),
    ...tenantRecords<Principal, ListFilter<PrincipalListQuery>>(
      col,
      { status: 'status', organization_id: 'organization_id', role: 'role' },
      { records: sealed, collection: 'principals' },
    ),
    findByEmail: (email: string) => col.findOne({ email_key: email.toLowerCase() }),
    async remove(id: string): Promise<void> {
      await col.deleteOne({ _id: id });
    },
  };
}

export type PrincipalsRepo = ReturnType<typeof createPrincipalsRepo>;
