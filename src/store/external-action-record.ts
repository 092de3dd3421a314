import type { ActionKind, ActionStatus } from '../domain/external-actions/schemas';
import type { ApproverAssertion } from '../signing/approver-challenge';

/**
 * The action's stored record, declared here and not derived from the workflow's state: the
 * workflow's state is mapped to it field by field where it is projected
 * (`actionRecordOf` in src/domain/external-actions/action-record.ts), so a change to either
 * shape is a compile error at that one mapping, never a silent change to stored documents.
 */

/** Who proposed or decided: a principal through one of its keys. */
export interface StoredActor {
  principal_id: string;
  key_id: string;
}

/** The approval settings an action records (the rule's, as it was at proposal). */
export interface StoredActionRule {
  rule_id: string;
  name: string;
  version: number;
  required_approvals: number | null;
  approver_roles: string[];
  approver_principals: string[];
  require_reason: boolean;
  wait_seconds: number;
  auto_execute: boolean;
  require_approver_signature?: true;
}

/** What an action does and within which bounds (the signed contract). */
export interface StoredActionContract {
  action_kind: ActionKind;
  target: { world_object_ref?: string; url?: string };
  parameters: Record<string, unknown>;
  bounds: { allowed_fields: string[]; expires_in_seconds: number; required_approvals: number };
  shared_context_id: string | null;
  reason: string | null;
}

export interface StoredDecision extends StoredActor {
  decision: 'approve' | 'reject' | 'execute';
  reason: string | null;
  plan_digest: string | null;
  at: string;
  role?: string | null;
  decision_id?: string;
  signed_at?: string;
  signature?: string;
  signer_key?: string;
  approver_assertion?: ApproverAssertion;
}

export interface StoredPlan {
  plan_digest: string;
  ok: boolean;
  diff: {
    object_id: string;
    base_version: number;
    changes: Record<string, { from: unknown; to: unknown }>;
  } | null;
  request: Record<string, unknown> | null;
  bounds: StoredActionContract['bounds'];
  policy: { allowed: boolean; reasons: string[] };
  planned_at: string;
  already_applied?: true;
}

export interface StoredExecution {
  outcome: 'executed' | 'failed';
  reason: string | null;
  result: Record<string, unknown>;
  started_at: string;
  finished_at: string;
}

/** The signed proposal an action started with. */
export interface StoredProposal {
  action_id: string;
  contract: StoredActionContract;
  proposed_by: StoredActor;
  rule: StoredActionRule | null;
  plan_digest: string | null;
  created_at: string;
  execute_when_approved: boolean;
  authority: string;
  signed_at: string;
  signer_key: string;
  signature: string;
}

/**
 * The MongoDB projection of an action, for reads and listings, with two fields derived for
 * the inbox query: who approved, and who may decide (`*`: anyone but the proposer; else
 * `principal:<id>` and `role:<role>` tokens from the rule in force).
 */
export interface ActionRecord extends StoredActionContract {
  _id: string;
  status: ActionStatus;
  status_timestamps: Partial<Record<ActionStatus, string>>;
  proposed_by: StoredActor;
  approvals: StoredDecision[];
  decisions: StoredDecision[];
  dry_run: StoredPlan | null;
  execution: StoredExecution | null;
  expires_at: string;
  workflow_id: string;
  run_id: string;
  first_run_id?: string;
  created_at: string;
  updated_at: string;
  seq: number;
  ledger_head: string | null;
  refused_decisions?: number;
  rule?: StoredActionRule | null;
  executable_at?: string | null;
  proposal: StoredProposal;
  approved_by?: string[];
  eligible?: string[];
}
