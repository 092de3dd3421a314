import type { ApproverKeysRepo } from '../../store/approver-keys.repo';
import type { ActionDecision, ActionState } from '../../workflows/external-action.contract';
import {
  assertionProblem,
  type KeyStanding,
  type RelyingParty,
} from '../approver-keys/approver-assertion';

/**
 * Why the approvals of an action whose signed rule requires approver signatures do not each
 * carry a valid one, or null (also null when the rule does not require them). Every
 * approval counted must be signed by its approver's own registered key over the challenge
 * rebuilt from the approval (action, plan, the signed rule and version, the approver), and
 * the api must have taken it before the challenge expired. Called with the rule of the
 * **signed** proposal, after `ActionAuthority.executionProblem` has verified it: by the
 * effect activity before it touches the world (keys active now), by the record activity
 * before a decision enters the ledger (approvals and rejections; each key not revoked before
 * the api signed that decision) and by the `approver_signatures` proof (keys not revoked
 * before the action started executing).
 */
export async function approverSignaturesProblem(
  state: Pick<ActionState, 'action_id' | 'decisions' | 'proposal'>,
  keys: Pick<ApproverKeysRepo, 'findByIds'>,
  relyingParty: RelyingParty,
  standing: KeyStanding | ((decision: ActionDecision) => KeyStanding),
  verbs: readonly ('approve' | 'reject')[] = ['approve'],
): Promise<string | null> {
  const rule = state.proposal.rule;
  if (!rule?.require_approver_signature) return null;
  const signed = state.decisions.filter(
    (d): d is ActionDecision & { decision: 'approve' | 'reject' } =>
      (verbs as readonly string[]).includes(d.decision),
  );
  if (signed.length === 0) return null;
  const found = await keys.findByIds(
    signed.flatMap((d) => (d.approver_assertion ? [d.approver_assertion.key_id] : [])),
  );
  for (const d of signed) {
    const assertion = d.approver_assertion;
    const verdict = await assertionProblem(
      assertion,
      {
        action_id: state.action_id,
        decision: d.decision,
        plan_digest: d.plan_digest,
        rule,
        principal_id: d.principal_id,
      },
      assertion && found.get(assertion.key_id),
      relyingParty,
      typeof standing === 'function' ? standing(d) : standing,
    );
    if (verdict.problem !== null) return verdict.problem;
    if (!(Date.parse(d.signed_at ?? '') <= Date.parse(assertion!.expires_at))) {
      return `the ${d.decision} of ${d.principal_id} was taken after its challenge expired (${assertion!.expires_at})`;
    }
  }
  return null;
}
