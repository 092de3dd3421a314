import type { Db, Filter } from 'mongodb';
import type { ApprovalRuleListQuery, RuleMatch } from '../domain/approvals/schemas';
import type { ListFilter } from '../lib/schema';
import type { ActionRule } from '../workflows/shared';
import type { TenantStatus } from './organizations.repo';
import { newestByIdPage } from './paging';

/**
 * An approval rule: which actions it governs and what approving them takes (the settings an
 * action records as its `ActionRule`). `version` is 1 at creation and one more at every
 * change: actions record the version they were proposed under.
 */
export interface ApprovalRule extends Omit<ActionRule, 'rule_id'> {
  _id: string;
  match: RuleMatch;
  status: TenantStatus;
  created_at: string;
  updated_at: string;
}

export type ApprovalRuleFilter = ListFilter<ApprovalRuleListQuery>;

export function createApprovalRulesRepo(db: Db) {
  const col = db.collection<ApprovalRule>('approval_rules');
  return {
    async insert(rule: ApprovalRule): Promise<ApprovalRule> {
      await col.insertOne(rule);
      return rule;
    },
    findById: (id: string) => col.findOne({ _id: id }),
    /** Rules newest first (ULID `_id` descending), before `beforeId`; `limit + 1` rows. */
    list(filter: ApprovalRuleFilter, limit: number, beforeId?: string) {
      const query: Filter<ApprovalRule> = {
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.action_kind ? { 'match.action_kind': filter.action_kind } : {}),
      };
      return newestByIdPage(col, query, limit, beforeId);
    },
    /** The status change bumps the version (one writer per read: the status claim). */
    async setStatus(rule: ApprovalRule, status: TenantStatus, now: string): Promise<void> {
      await col.updateOne(
        { _id: rule._id },
        { $set: { status, version: rule.version + 1, updated_at: now } },
      );
    },
    /** Every active rule (a short list: operators write rules by hand). */
    active: () => col.find({ status: 'active' }).sort({ _id: -1 }).toArray(),
  };
}

export type ApprovalRulesRepo = ReturnType<typeof createApprovalRulesRepo>;
