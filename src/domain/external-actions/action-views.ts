import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { FAMILIES, entitlementRank } from '../../auth/families';
import type { ActionListEntry, ActionRecord } from '../../store/external-actions.repo';
import { mayDecideUnder, type ActionDecision } from '../../workflows/external-action.contract';
import { targetOf } from '../approval-rules/approval-rules.service';
import { workflowUrlOf } from '../workflow-links';

/** True when the key reaches the family (class and layer). */
export function reaches(auth: AuthContext, family: 'external_action_execution'): boolean {
  const policy = FAMILIES[family];
  return (
    entitlementRank(auth.entitlement) >= entitlementRank(policy.minEntitlement) &&
    auth.accessLayer >= policy.minLayer
  );
}

/** What the calling key may do next with the action. */
export function allowedFor(
  record: Pick<ActionRecord, 'status' | 'proposed_by' | 'rule' | 'approvals' | 'executable_at'>,
  auth: AuthContext,
  nowMs = Date.now(),
) {
  const mayDecide =
    record.status === 'awaiting_approval' &&
    reaches(auth, 'external_action_execution') &&
    auth.principalId !== record.proposed_by.principal_id &&
    mayDecideUnder(record.rule, { principal_id: auth.principalId, role: auth.role });
  return {
    approve: mayDecide && !record.approvals.some((a) => a.principal_id === auth.principalId),
    reject: mayDecide,
    execute:
      record.status === 'approved' &&
      reaches(auth, 'external_action_execution') &&
      (!record.executable_at || Date.parse(record.executable_at) <= nowMs),
  };
}

type Decidable = Pick<
  ActionRecord,
  'status' | 'proposed_by' | 'rule' | 'approvals' | 'executable_at' | 'bounds'
>;

/**
 * Why the calling key may not take each decision `allowedFor` refuses, in words for the
 * caller, checked in the order `allowedFor` checks them; a decision it allows has no entry.
 */
export function whyNotFor(record: Decidable, auth: AuthContext, nowMs = Date.now()) {
  const allowed = allowedFor(record, auth, nowMs);
  const status = record.status.replaceAll('_', ' ');
  const outOfReach =
    "your key's entitlement class or access layer does not reach decisions on actions";
  const decideWhy = (): string => {
    if (record.status !== 'awaiting_approval') {
      return `it is ${status}; only an action awaiting approval takes approvals and rejections`;
    }
    if (!reaches(auth, 'external_action_execution')) return outOfReach;
    if (auth.principalId === record.proposed_by.principal_id) {
      return 'you proposed it; a proposer cannot decide on their own action';
    }
    if (!mayDecideUnder(record.rule, { principal_id: auth.principalId, role: auth.role })) {
      return 'the rule in force names other approvers';
    }
    return 'you approved it already';
  };
  const executeWhy = (): string => {
    if (!reaches(auth, 'external_action_execution')) return outOfReach;
    if (record.status === 'awaiting_approval') {
      const missing = Math.max(record.bounds.required_approvals - record.approvals.length, 1);
      return `it needs ${missing} more approval${missing === 1 ? '' : 's'} first`;
    }
    if (record.status === 'approved' && record.executable_at) {
      return `the rule's wait: it may execute from ${record.executable_at}`;
    }
    return `it is ${status}; only an approved action can be executed`;
  };
  return {
    ...(allowed.approve ? {} : { approve: decideWhy() }),
    ...(allowed.reject ? {} : { reject: decideWhy() }),
    ...(allowed.execute ? {} : { execute: executeWhy() }),
  };
}

/** The action as clients see it, with what the calling key may do next. */
export function toActionView(
  deps: Pick<DomainInfra, 'config' | 'temporal'>,
  record: ActionRecord,
  auth: AuthContext,
) {
  const {
    _id,
    seq: _seq,
    proposed_by,
    approved_by: _by,
    eligible: _eligible,
    proposal: _proposal,
    first_run_id: _firstRunId,
    ...rest
  } = record;
  return {
    action_id: _id,
    ...rest,
    approvals: record.approvals.map(publicDecision),
    decisions: record.decisions.map(publicDecision),
    proposed_by: proposed_by.principal_id,
    allowed: allowedFor(record, auth),
    why_not: whyNotFor(record, auth),
    workflow_url: workflowUrlOf(deps, record.workflow_id),
    // The current run's history: the workflow records its run id, and the closed-run
    // watcher follows a reset to the new run (docs/temporal-ui.md, "Resets").
    links: {
      temporal_ui: `${workflowUrlOf(deps, record.workflow_id)}/${encodeURIComponent(record.run_id)}/history`,
    },
  };
}

/**
 * A decision as clients see it: the api's signature is in the ledger, for the proofs; the
 * approver's own assertion is shown, as the view documents, so a client can tell which of
 * the approver's keys signed it.
 */
const publicDecision = ({
  decision,
  principal_id,
  key_id,
  reason,
  plan_digest,
  at,
  approver_assertion,
}: ActionDecision) => ({
  decision,
  principal_id,
  key_id,
  reason,
  plan_digest,
  at,
  ...(approver_assertion ? { approver_assertion: { ...approver_assertion } } : {}),
});

/** What a list keeps of an action (and the inbox stores). */
export function listEntryOf(record: ActionRecord): ActionListEntry {
  return {
    _id: record._id,
    seq: record.seq,
    status: record.status,
    action_kind: record.action_kind,
    target: record.target,
    reason: record.reason,
    shared_context_id: record.shared_context_id,
    proposed_by: record.proposed_by,
    approvals: record.approvals.map(publicDecision),
    bounds: record.bounds,
    rule: record.rule ?? null,
    expires_at: record.expires_at,
    executable_at: record.executable_at ?? null,
    workflow_id: record.workflow_id,
    created_at: record.created_at,
    updated_at: record.updated_at,
    approved_by: record.approved_by ?? record.approvals.map((a) => a.principal_id),
    eligible: record.eligible ?? ['*'],
    diff_summary: diffSummary(record),
    plan_digest: record.dry_run?.plan_digest ?? null,
  };
}

/** An action as a list shows it. */
export function actionSummary(record: ActionListEntry, auth: AuthContext, nowMs = Date.now()) {
  return {
    action_id: record._id,
    action_kind: record.action_kind,
    status: record.status,
    target: record.target,
    reason: record.reason,
    diff_summary: record.diff_summary,
    plan_digest: record.plan_digest,
    proposed_by: record.proposed_by.principal_id,
    approvals: record.approvals.map(({ principal_id, at }) => ({ principal_id, at })),
    required_approvals: record.bounds.required_approvals,
    rule: record.rule ?? null,
    shared_context_id: record.shared_context_id,
    expires_at: record.expires_at,
    executable_at: record.executable_at ?? null,
    allowed: allowedFor(record, auth, nowMs),
    workflow_id: record.workflow_id,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

const DIFF_SUMMARY_MAX = 512;

/** One line of what execution would do, from the dry-run plan. */
export function diffSummary(
  record: Pick<ActionRecord, 'action_kind' | 'dry_run' | 'target' | 'parameters'>,
): string | null {
  const plan = record.dry_run;
  if (!plan) return null;
  let line: string;
  if (!plan.ok) line = `dry run failed: ${plan.policy.reasons.join('; ')}`;
  else if (plan.diff) {
    line = Object.entries(plan.diff.changes)
      .map(
        ([field, { from, to }]) =>
          `${field}: ${JSON.stringify(from) ?? 'unset'} → ${JSON.stringify(to)}`,
      )
      .join(', ');
  } else if (record.action_kind === 'webhook.post') line = `POST ${record.target.url ?? ''}`;
  else line = `notify ${targetOf(record)}`;
  return line.length > DIFF_SUMMARY_MAX ? `${line.slice(0, DIFF_SUMMARY_MAX - 1)}…` : line;
}
