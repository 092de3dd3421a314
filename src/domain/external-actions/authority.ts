import { LRUCache } from 'lru-cache';
import { decisionMessage } from '../../signing/decision-signature';
import { claimMessage, signatureProblem, type ClaimSignature } from '../../signing/signed-claims';
import {
  mayDecideUnder,
  type ActionDecision,
  type ActionState,
  type SignedActionProposal,
} from '../../workflows/external-action.contract';

/** Statuses an action reaches only with its approvals complete. */
const APPROVED_STATUSES = new Set<ActionState['status']>(['approved', 'executing', 'executed']);

/**
 * What an action's record or effect must be able to show: a proposal the api signed and,
 * for anything past approval, signed decisions that satisfy the rule the api signed with
 * it. Judged with the verifier's own accepted keys (`acceptedSignerKeys`), never with
 * anything the workflow's input or history names: the worker's activities call it before
 * they record a projection or cause an effect, and the `decisions_signed` proof calls it
 * over the ledger, so a forged or tampered workflow can neither act nor make the api show a
 * false action (docs/actions.md, the trust boundary).
 */
export interface ActionAuthority {
  /** Why the proposal is not one the api signed, or null. */
  proposalProblem(proposal: SignedActionProposal | null | undefined): string | null;
  /** Why a decision is not the api's signed decision on this action, or null. */
  decisionProblem(actionId: string, decision: ActionDecision): string | null;
  /** Why the state's status and decisions are not what its signatures support, or null. */
  stateProblem(state: ActionState): string | null;
  /** Why executing the plan with this digest is not authorised by the state, or null. */
  executionProblem(state: ActionState, planDigest: string): string | null;
}

/** Verified signatures kept, so each is checked once per process (a few per action). */
const VERIFIED_SIGNATURES = 10_000;

export function createActionAuthority(acceptedKeys: readonly string[]): ActionAuthority {
  // signature → the message it was verified over (a signature holds for one message).
  const verified = new LRUCache<string, string>({ max: VERIFIED_SIGNATURES });
  const check = (
    message: Uint8Array,
    signature: Partial<ClaimSignature> | undefined,
    what: string,
  ): string | null => {
    const signed = `${signature?.signer_key}\n${new TextDecoder().decode(message)}`;
    if (signature?.signature && verified.get(signature.signature) === signed) return null;
    const problem = signatureProblem(acceptedKeys, message, signature, what);
    if (!problem && signature?.signature) verified.set(signature.signature, signed);
    return problem;
  };

  const proposalProblem = (proposal: SignedActionProposal | null | undefined): string | null => {
    if (!proposal) return 'the proposal is not signed by the api';
    const { signed_at, signer_key, signature, ...claim } = proposal;
    return check(
      claimMessage('proposal', claim, signed_at),
      { signed_at, signer_key, signature },
      'the proposal',
    );
  };

  const decisionProblem = (actionId: string, d: ActionDecision): string | null => {
    if (!d.decision_id || !d.signed_at) return `this ${d.decision} is not signed by the api`;
    const message = decisionMessage({
      action_id: actionId,
      decision: d.decision,
      principal_id: d.principal_id,
      key_id: d.key_id,
      role: d.role ?? null,
      plan_digest: d.plan_digest,
      reason: d.reason,
      decision_id: d.decision_id,
      signed_at: d.signed_at,
    });
    return check(message, d, `the ${d.decision} of ${d.principal_id}`);
  };

  /** Why the approvals do not satisfy the signed rule and bounds for `planDigest`. */
  const approvalsProblem = (state: ActionState, planDigest: string | null): string | null => {
    const { proposal } = state;
    const expiresAt =
      Date.parse(proposal.created_at) + proposal.contract.bounds.expires_in_seconds * 1000;
    const approvers = new Set<string>();
    for (const d of state.decisions) {
      if (d.decision !== 'approve') continue;
      const problem =
        decisionProblem(state.action_id, d) ??
        (d.principal_id === proposal.proposed_by.principal_id
          ? `the proposer ${d.principal_id} approved their own action`
          : null) ??
        (mayDecideUnder(proposal.rule, { principal_id: d.principal_id, role: d.role ?? undefined })
          ? null
          : `${d.principal_id} may not approve under rule ${proposal.rule?.rule_id}`) ??
        (planDigest && d.plan_digest !== planDigest
          ? `the approval of ${d.principal_id} names plan ${d.plan_digest}, not ${planDigest}`
          : null) ??
        (Date.parse(d.signed_at!) > expiresAt
          ? `the approval of ${d.principal_id} was signed after the window ended`
          : null);
      if (problem) return problem;
      approvers.add(d.principal_id);
    }
    const required = proposal.contract.bounds.required_approvals;
    return approvers.size < required
      ? `${approvers.size} signed approval(s) of ${required} required`
      : null;
  };

  /** Why the proposal or any decision the state holds is not the api's, or null. */
  const signaturesProblem = (state: ActionState): string | null => {
    const { proposal } = state;
    const problem =
      proposalProblem(proposal) ??
      (proposal.action_id === state.action_id
        ? null
        : `the proposal is for ${proposal.action_id}, not ${state.action_id}`);
    if (problem) return problem;
    for (const d of state.decisions) {
      if (d.principal_id === 'auto' && d.decision === 'execute' && !d.signature) continue;
      const bad = decisionProblem(state.action_id, d);
      if (bad) return bad;
    }
    return null;
  };

  const stateProblem = (state: ActionState): string | null =>
    signaturesProblem(state) ??
    (APPROVED_STATUSES.has(state.status) ? approvalsProblem(state, null) : null);

  const executionProblem = (state: ActionState, planDigest: string): string | null => {
    const problem = signaturesProblem(state) ?? approvalsProblem(state, planDigest);
    if (problem) return problem;
    const { proposal } = state;
    if (state.decisions.some((d) => d.decision === 'reject')) return 'the action was rejected';
    const auto = proposal.execute_when_approved || proposal.rule?.auto_execute === true;
    const executed = state.decisions.some((d) => d.decision === 'execute' && d.signature);
    if (!auto && !executed) return 'no signed execute decision, and the rule does not auto-execute';
    // The rule's wait runs from the last approval (signed before the workflow took it).
    const lastApproval = Math.max(
      ...state.decisions
        .filter((d) => d.decision === 'approve')
        .map((d) => Date.parse(d.signed_at!)),
    );
    const waitMs = (proposal.rule?.wait_seconds ?? 0) * 1000;
    return Date.now() < lastApproval + waitMs
      ? `rule ${proposal.rule?.rule_id} makes execution wait until ${new Date(lastApproval + waitMs).toISOString()}`
      : null;
  };

  return { proposalProblem, decisionProblem, stateProblem, executionProblem };
}
