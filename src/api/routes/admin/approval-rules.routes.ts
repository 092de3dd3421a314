import * as rulesService from '../../../domain/approval-rules/approval-rules.service';
import * as approvalsSchemas from '../../../domain/approval-rules/schemas';
import { approvalRuleView } from '../../../domain/approval-rules/view-schemas';
import { tenantRoutes } from './tenant-routes';

/** Approval rules (docs/approvals.md), operator keys only. */
export const approvalRuleRoutes = tenantRoutes({
  resource: 'approval-rules',
  singular: 'approval rule',
  view: approvalRuleView,
  list: {
    summary: 'list approval rules',
    description: 'Lists approval rules, newest first, optionally by status or the kind they match.',
    query: approvalsSchemas.approvalRuleListQuery,
    run: rulesService.listApprovalRules,
  },
  create: {
    summary: 'create approval rule',
    description:
      'Creates an active approval rule. Each proposal is governed by the most specific active rule that matches it (most `match` fields given; the newest of equals), recorded on the action with its version: it may raise `required_approvals`, limit who may approve or reject, require a reason, set a wait after approval before execution, and execute automatically.',
    bodyName: 'CreateApprovalRuleRequest',
    body: approvalsSchemas.createApprovalRuleBody,
    run: rulesService.createApprovalRule,
  },
  setStatus: {
    summary: 'set approval rule status',
    description:
      'Sets a rule `active`, `suspended` or `archived` (its version goes up); only active rules govern new proposals, and actions already proposed keep the rule they were proposed under.',
    bodyName: 'SetApprovalRuleStatusRequest',
    body: approvalsSchemas.setApprovalRuleStatusBody,
    run: rulesService.setApprovalRuleStatus,
  },
});
