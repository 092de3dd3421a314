import { LRUCache } from 'lru-cache';
import type { RelyingParty } from '../domain/approver-keys/approver-assertion';
import { approverSignaturesProblem } from '../domain/external-actions/approver-authority';
import type { ApproverKeysRepo } from '../store/approver-keys.repo';
import type { ActionDecision, ActionState } from '../workflows/external-action.contract';

/**
 * The record step's check of approver signatures. Under a signed rule that requires them,
 * every approval and rejection in the state must carry the approver's own valid signature
 * before it enters the ledger: the workflow only checks one is present, so a decision made
 * with a stolen api signing key and a made-up assertion would otherwise be recorded (a
 * rejection would even end the action). Keys are judged as they stood when the api signed
 * each decision, so a key revoked later still lets the action's later transitions (its
 * failure) be recorded; the effect judges keys as they stand now. Checked once per decision
 * per worker: a decision is in every later state of its action, and a valid one stays valid
 * for the ledger.
 */
export function createRecordedAssertionCheck(
  keys: Pick<ApproverKeysRepo, 'findByIds'>,
  relyingParty: RelyingParty,
) {
  const verified = new LRUCache<string, true>({ max: 10_000 });
  const keyOf = (state: ActionState, d: ActionDecision) =>
    `${state.action_id}/${d.decision_id}/${d.approver_assertion?.signature ?? d.approver_assertion?.webauthn?.signature ?? '-'}`;
  return async function approverAssertionsProblem(state: ActionState): Promise<string | null> {
    const unchecked = state.decisions.filter(
      (d) => d.decision !== 'execute' && !verified.has(keyOf(state, d)),
    );
    if (unchecked.length === 0 || !state.proposal.rule?.require_approver_signature) return null;
    const problem = await approverSignaturesProblem(
      { ...state, decisions: unchecked },
      keys,
      relyingParty,
      (d) => ({ activeAt: d.signed_at ?? '' }),
      ['approve', 'reject'],
    );
    if (!problem) for (const d of unchecked) verified.set(keyOf(state, d), true);
    return problem;
  };
}
