import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { newId } from '../../lib/ids';
import type { ApprovalRule, ApprovalRulesRepo } from '../../store/approval-rules.repo';
import type { ActionContract, ActionRule } from '../../workflows/external-action.contract';
import { createdActive } from '../governance/audit';
import * as tenant from '../governance/tenant-resource';
import type {
  ApprovalRuleListQuery,
  CreateApprovalRuleBody,
  SetApprovalRuleStatusBody,
} from './schemas';
import { withIdAs } from '../../lib/records';

type Deps = Pick<DomainInfra, 'authenticator' | 'config' | 'repos'>;

/** A rule as stored, but its seal (which only the service checks). */
export const toApprovalRuleView = ({ seal: _seal, ...rule }: ApprovalRule) =>
  withIdAs(rule, 'rule_id');

/** Suspending or archiving a rule leaves actions already proposed under it as they are. */
const rules = tenant.resource(
  'approval_rule',
  'apr',
  (repos) => repos.approvalRules,
  toApprovalRuleView,
);

/** Creates an active rule (version 1); it governs actions proposed from now on. */
export async function createApprovalRule(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: CreateApprovalRuleBody,
) {
  const rule: ApprovalRule = {
    _id: newId('apr'),
    name: body.name,
    match: body.match,
    required_approvals: body.required_approvals ?? null,
    approver_roles: body.approver_roles ?? [],
    approver_principals: body.approver_principals ?? [],
    require_reason: body.require_reason ?? false,
    wait_seconds: body.wait_seconds ?? 0,
    auto_execute: body.auto_execute ?? false,
    ...(body.require_approver_signature ? { require_approver_signature: true as const } : {}),
    version: 1,
    ...createdActive(new Date().toISOString()),
  };
  return tenant.create(deps, auth, requestId, rules, rule);
}

/** `GET /v1/admin/approval-rules`: newest first, optionally by status or kind matched. */
export const listApprovalRules = (deps: Pick<DomainInfra, 'repos'>, query: ApprovalRuleListQuery) =>
  tenant.list(deps, rules, query);

export const setApprovalRuleStatus = tenant.statusSetter(
  rules,
  (body: SetApprovalRuleStatusBody) => body.rule_id,
);

/** What a rule's `target_prefix` is compared with. */
export function targetOf(contract: Pick<ActionContract, 'target' | 'parameters'>): string {
  const channel = contract.parameters['channel'];
  return (
    contract.target.world_object_ref ??
    contract.target.url ??
    (typeof channel === 'string' ? channel : '')
  );
}

const matches = (rule: ApprovalRule, contract: ActionContract): boolean =>
  (!rule.match.action_kind || rule.match.action_kind === contract.action_kind) &&
  (!rule.match.target_prefix || targetOf(contract).startsWith(rule.match.target_prefix)) &&
  (!rule.match.shared_context_id || rule.match.shared_context_id === contract.shared_context_id);

const specificity = (rule: ApprovalRule): number =>
  Object.values(rule.match).filter((value) => value !== undefined).length;

/**
 * The rule in force for a contract: of the active rules that match it, the most specific
 * (most match fields given), and of those the newest. Null when none matches.
 */
export async function ruleFor(
  repo: Pick<ApprovalRulesRepo, 'active' | 'checked'>,
  contract: ActionContract,
): Promise<ActionRule | null> {
  let best: ApprovalRule | undefined;
  for (const rule of await repo.active()) {
    if (!matches(rule, contract)) continue;
    // Every rule that matches is checked, not only the one chosen: a rule edited in the
    // database refuses the proposals it matches (throws), never leaves another in force.
    // One edited to match nothing more is as good as deleted, which the database's holder
    // can do anyway (docs/approvals.md, "Threat model").
    await repo.checked(rule);
    if (!best || specificity(rule) > specificity(best)) best = rule;
  }
  if (!best) return null;
  return {
    rule_id: best._id,
    name: best.name,
    version: best.version,
    required_approvals: best.required_approvals,
    approver_roles: best.approver_roles,
    approver_principals: best.approver_principals,
    require_reason: best.require_reason,
    wait_seconds: best.wait_seconds,
    auto_execute: best.auto_execute,
    ...(best.require_approver_signature ? { require_approver_signature: true as const } : {}),
  };
}
