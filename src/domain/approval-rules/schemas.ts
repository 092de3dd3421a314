/**
 * Approval rules (docs/approvals.md): which actions they govern, and what approving them
 * takes. Request types are derived from the schemas.
 */
import type { Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { ACTION_BOUNDS, ACTION_KINDS } from '../external-actions/schemas';
import {
  PRINCIPAL_ROLES,
  principalId,
  tenantStatusBody,
  tenantStatus,
} from '../governance/schemas';
import { idCursor } from '../../lib/cursor';

/** Bounds of a rule's settings. */
export const APPROVAL_RULE_LIMITS = { waitSeconds: 604_800, approverPrincipals: 50 } as const;

export const approvalRuleId = (description: string) => schema.idRef('apr', description);

/** Which actions a rule governs: every field given must match; none given matches all. */
export const ruleMatch = schema.closedObject(
  {
    action_kind: schema.choice(ACTION_KINDS, 'Actions of this kind.'),
    target_prefix: schema.text(
      'Actions whose target starts with this: the world object id (`world.update_object`), the URL (`webhook.post`) or the channel (`notify`).',
      512,
    ),
    shared_context_id: schema.contextRef('Actions in this shared context.'),
  },
  [],
  'Which actions the rule governs: every field given must match (none: every action).',
);
export type RuleMatch = Static<typeof ruleMatch>;

/** Body of `POST /v1/admin/approval-rules/create`. */
export const createApprovalRuleBody = schema.closedObject(
  {
    name: schema.text('Rule name.', 128),
    match: ruleMatch,
    required_approvals: schema.integer(
      "Approvals the governed actions need; it raises the proposal's own number, never lowers it.",
      ACTION_BOUNDS.requiredApprovals.min,
      ACTION_BOUNDS.requiredApprovals.max,
    ),
    approver_roles: schema.arrayOf(
      schema.choice(PRINCIPAL_ROLES, 'A principal role.'),
      'Principals with one of these roles may approve or reject (with `approver_principals`: either list admits).',
      { maxItems: PRINCIPAL_ROLES.length, uniqueItems: true },
    ),
    approver_principals: schema.arrayOf(
      principalId('A principal.'),
      'These principals may approve or reject (none listed in either: anyone but the proposer).',
      { maxItems: APPROVAL_RULE_LIMITS.approverPrincipals, uniqueItems: true },
    ),
    require_reason: schema.flag('Approvals and rejections must give a `reason`.', false),
    wait_seconds: schema.integer(
      'Seconds after approval before execution may start: a durable wait timer.',
      0,
      APPROVAL_RULE_LIMITS.waitSeconds,
      0,
    ),
    auto_execute: schema.flag(
      'Execute as soon as the action is approved and the wait is over, with no execute call.',
      false,
    ),
    require_approver_signature: schema.flag(
      "Approvals and rejections must carry the approver's own signature (a registered passkey or Ed25519 key) over a server-issued challenge; a bare API key is 403.",
      false,
    ),
  },
  ['name', 'match'],
);
export type CreateApprovalRuleBody = Static<typeof createApprovalRuleBody>;

/** Query of `GET /v1/admin/approval-rules`. */
export const approvalRuleListQuery = schema.pagedQuery(idCursor('apr').schema, {
  status: tenantStatus('Only rules in this status.'),
  action_kind: schema.choice(ACTION_KINDS, 'Only rules that match on this kind.'),
});
export type ApprovalRuleListQuery = Static<typeof approvalRuleListQuery>;

/** Body of `POST /v1/admin/approval-rules/status`; only active rules govern new proposals. */
export const setApprovalRuleStatusBody = tenantStatusBody(
  'rule_id',
  approvalRuleId('Rule to change.'),
);
export type SetApprovalRuleStatusBody = Static<typeof setApprovalRuleStatusBody>;
