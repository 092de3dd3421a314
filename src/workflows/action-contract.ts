import type { ApproverAssertion } from '../signing/approver-challenge';
import type { ClaimSignature } from '../signing/signed-claims';
import type { ActionKind } from '../domain/external-actions/schemas';
import type { DisplayNames } from './action-text';

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
