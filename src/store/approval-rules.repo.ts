import type { Db } from 'mongodb';
import type { ApprovalRuleListQuery, RuleMatch } from '../domain/approval-rules/schemas';
import type { ListFilter } from '../lib/schema';
import type { StoredActionRule } from './external-action-record';
import type { SealedRecords } from './sealed-records';
import { tenantRecords, type TenantRecord } from './tenant-records';

/**
 * An approval rule: which actions it governs and what approving them takes (the settings an
 * action records as its `StoredActionRule`). `version` is 1 at creation and one more at every
 * change: actions record the version they were proposed under.
 */
export interface ApprovalRule extends Omit<StoredActionRule, 'rule_id'>, TenantRecord {
  /** Always set on a rule (the tenant record's is optional). */
  version: number;
  match: RuleMatch;
}

export function createApprovalRulesRepo(db: Db, sealed: SealedRecords) {
  const col = db.collection<ApprovalRule>('approval_rules');
  return {
    ...tenantRecords<ApprovalRule, ListFilter<ApprovalRuleListQuery>>(
      col,
      { status: 'status', action_kind: 'match.action_kind' },
      { records: sealed, collection: 'approval_rules' },
    ),
    /** Every active rule (a short list: operators write rules by hand), as stored. */
    active: () => col.find({ status: 'active' }).sort({ _id: -1 }).toArray(),
    /** The rule when its seal holds and it is current; throws `RecordIntegrityError` otherwise. */
    checked: async (rule: ApprovalRule): Promise<void> => {
      await sealed.checked('approval_rules', rule);
    },
  };
}

export type ApprovalRulesRepo = ReturnType<typeof createApprovalRulesRepo>;
