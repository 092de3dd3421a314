import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ApproverAssertion } from '../signing/approver-challenge';
import type { ClaimSignature } from '../signing/signed-claims';
import type { ActionKind, ActionStatus } from '../domain/external-actions/schemas';
import type { DisplayNames } from './action-text';

/**
 * The external action workflow's contract (docs/actions.md): its input, the state it holds
 * and answers with, its updates and query, its errors and its workflow id.
 */

// What the Web UI shows of an action before it starts: built by its starter (api, repair).
export {
  actionStaticDetails,
  actionStaticSummary,
  actionTargetText,
  type ActionStartFacts,
  type DisplayNames,
} from './action-text';

// The action vocabulary is the domain's (a type-only import keeps TypeBox out of the bundle).
export type { ActionKind, ActionStatus };

/**
 * Statuses after which the workflow ends; `aborted` is recorded by the api when the
 * workflow was ended from Temporal instead (docs/actions.md).
 */
export const FINAL_ACTION_STATUSES: readonly ActionStatus[] = [
  'dry_run_failed',
  'rejected',
  'expired',
  'executed',
  'failed',
  'aborted',
];

/** True when the rule in force admits this principal to approve or reject. */
export function mayDecideUnder(
  rule: ActionRule | null | undefined,
  decider: { principal_id: string; role?: string },
): boolean {
  if (!rule || (rule.approver_roles.length === 0 && rule.approver_principals.length === 0)) {
    return true;
  }
  return (
    rule.approver_principals.includes(decider.principal_id) ||
    (decider.role !== undefined && rule.approver_roles.includes(decider.role))
  );
}

/** A dry-run plan: what execution would do, and whether policy allows it. */
export interface ActionPlan {
  plan_digest: string;
  ok: boolean;
  diff: {
    object_id: string;
    base_version: number;
    changes: Record<string, { from: unknown; to: unknown }>;
  } | null;
  request: Record<string, unknown> | null;
  bounds: ActionContract['bounds'];
  policy: { allowed: boolean; reasons: string[] };
  planned_at: string;
  /**
   * Set by the re-plan before executing when the object already carries this action's own
   * change: an earlier execution applied it and its worker died before the workflow
   * recorded that (found by `npm run chaos`). Not drift: applying again is a no-op.
   */
  already_applied?: true;
}

/** Why an approved plan was not applied: the plan made again at the effect, and policy's reasons. */
export interface PlanRefusal {
  replanned_digest: string;
  reasons: string[];
}

export interface ActionDecision extends ActionActor {
  decision: 'approve' | 'reject' | 'execute';
  reason: string | null;
  plan_digest: string | null;
  at: string;
  /**
   * The api's signature and what it covers beyond the fields above (absent on the workflow's
   * own `auto` execute): kept so the effect and the proofs can verify the decision again.
   */
  role?: string | null;
  decision_id?: string;
  signed_at?: string;
  signature?: string;
  signer_key?: string;
  /** The approver's own signature, kept for the effect's check and the ledger. */
  approver_assertion?: ApproverAssertion;
}

export interface ActionExecution {
  outcome: 'executed' | 'failed';
  reason: string | null;
  result: Record<string, unknown>;
  started_at: string;
  finished_at: string;
}

/** The contract as proposed, with bounds defaults filled in. */
export interface ActionContract {
  action_kind: ActionKind;
  target: { world_object_ref?: string; url?: string };
  parameters: Record<string, unknown>;
  bounds: { allowed_fields: string[]; expires_in_seconds: number; required_approvals: number };
  shared_context_id: string | null;
  reason: string | null;
}

/**
 * The approval rule in force for an action (docs/approvals.md), as it was when the action
 * was proposed: later changes to the rule do not reach actions already proposed.
 */
export interface ActionRule {
  rule_id: string;
  name: string;
  version: number;
  /** What the rule asked for; the contract's `required_approvals` already includes it. */
  required_approvals: number | null;
  /** Who may approve or reject; both empty: anyone but the proposer. */
  approver_roles: string[];
  approver_principals: string[];
  require_reason: boolean;
  wait_seconds: number;
  auto_execute: boolean;
  /**
   * Approvals and rejections must carry the approver's own signature (docs/approvals.md).
   * Present only when true, so the signed bytes of other rules are as they were.
   */
  require_approver_signature?: true;
}

export interface ActionActor {
  principal_id: string;
  key_id: string;
}

/**
 * What the api signs when it proposes an action (`src/signing/signed-claims.ts`, kind
 * `proposal`): the worker records nothing and causes no effect for an action whose start
 * input does not carry a valid signature over exactly this, by a key of its own configuration.
 */
export interface ActionProposalClaim {
  action_id: string;
  contract: ActionContract;
  proposed_by: ActionActor;
  /** The approval rule in force (with its id and version), or null. */
  rule: ActionRule | null;
  /** The plan the api saw at proposal (the workflow's own dry run is what approvals bind). */
  plan_digest: string | null;
  created_at: string;
  execute_when_approved: boolean;
  /** Who vouches: `api`, or `repair:<repair_id>` for a repair's child action. */
  authority: string;
}

export type SignedActionProposal = ActionProposalClaim & ClaimSignature;

export interface ActionWorkflowInput {
  action_id: string;
  contract: ActionContract;
  proposed_by: ActionActor;
  created_at: string;
  /** The approval rule in force, if any matched. */
  rule?: ActionRule | null;
  /**
   * Executes as soon as it is approved (and the rule's wait is over): the repair that
   * proposed it asked for its effect, so nobody has to call `execute` as well.
   */
  execute_when_approved?: boolean;
  /** The api's dry-run digest at proposal (signed with the proposal). */
  plan_digest?: string | null;
  /** Who vouches for the proposal (default `api`). */
  authority?: string;
  /** The signature over `proposalClaimOf(input)`. */
  proposal_signature?: ClaimSignature;
  /** Names the starter resolved for what people read in the Web UI (display only). */
  names?: DisplayNames;
}

/** What a start input claims, as the proposal signature covers it. */
export const proposalClaimOf = (input: ActionWorkflowInput): ActionProposalClaim => ({
  action_id: input.action_id,
  contract: input.contract,
  proposed_by: input.proposed_by,
  rule: input.rule ?? null,
  plan_digest: input.plan_digest ?? null,
  created_at: input.created_at,
  execute_when_approved: input.execute_when_approved ?? false,
  authority: input.authority ?? 'api',
});

/**
 * What a decision update carries: who decides (the calling key's principal) and why, signed
 * by the api that authenticated them (`src/signing/decision-signature.ts`).
 */
export interface ActionDecisionInput extends ActionActor {
  /** The decider's role, as the api authenticated it (rules may admit roles). */
  role?: string;
  reason?: string;
  plan_digest?: string;
  decision_id?: string;
  signed_at?: string;
  signature?: string;
  signer_key?: string;
  /** The decider's name, for the Web UI only: not signed, never an identity. */
  principal_name?: string;
  /** The approver's own signature over the decision's challenge (`src/signing/approver-challenge.ts`). */
  approver_assertion?: ApproverAssertion;
}

/** The authoritative state of an action, held by its workflow (the single writer). */
export interface ActionState extends ActionContract {
  action_id: string;
  status: ActionStatus;
  status_timestamps: Partial<Record<ActionStatus, string>>;
  proposed_by: ActionActor;
  approvals: ActionDecision[];
  decisions: ActionDecision[];
  dry_run: ActionPlan | null;
  execution: ActionExecution | null;
  expires_at: string;
  workflow_id: string;
  run_id: string;
  /** The first run of its chain (a reset keeps it): which start opened the action. */
  first_run_id?: string;
  created_at: string;
  updated_at: string;
  /** Projection sequence: the store keeps the highest. */
  seq: number;
  /** Digest of the newest ledger entry of this action. */
  ledger_head: string | null;
  /** Decisions refused for a missing, bad or replayed signature (sent around the api). */
  refused_decisions?: number;
  /** The approval rule in force (null: none matched). */
  rule?: ActionRule | null;
  /** When execution may start: approval plus the rule's wait (set once approved). */
  executable_at?: string | null;
  /** The signed proposal the workflow started with: what every effect is checked against. */
  proposal: SignedActionProposal;
}

/** Error types the action workflow's update validators throw; the api maps them to HTTP. */
export const ACTION_ERRORS = {
  invalidState: 'InvalidState',
  forbidden: 'Forbidden',
  conflict: 'Conflict',
  /** A decision without a valid api signature: forged, replayed or stale. */
  unsigned: 'UnsignedDecision',
  /** A start input without a valid api signature: the workflow does nothing. */
  unsignedProposal: 'UnsignedProposal',
  /** The rule in force wants a reason and the decision gave none (422 naming `reason`). */
  reasonRequired: 'ReasonRequired',
  /**
   * The run disagrees with the action's ledger (a reset's run that lacks what the ledger
   * holds, or goes on after the action ended): it records nothing more and ends
   * (docs/actions.md, "Resets"). Its details: the status the ledger ends the action in.
   */
  runRefused: 'RunRefused',
} as const;

/** Failure types an action's effect ends with; none of them is retried. */
export const EXECUTION_FAILURES = {
  planDrift: 'PlanDrift',
  /** The plan made again at the effect is one policy now denies. */
  policyDenied: 'PolicyDenied',
  webhookRejected: 'WebhookRejected',
} as const;

export const actionWorkflowId = (actionId: string): string => `action-${actionId}`;

export const approveActionUpdate = defineUpdate<ActionState, [ActionDecisionInput]>('approve');
export const rejectActionUpdate = defineUpdate<ActionState, [ActionDecisionInput]>('reject');
export const executeActionUpdate = defineUpdate<ActionState, [ActionDecisionInput]>('execute');
/** Returns once the dry run has settled the action (awaiting approval or failed). */
export const planSettledUpdate = defineUpdate<ActionState, []>('planSettled');
export const actionStateQuery = defineQuery<ActionState>('state');
