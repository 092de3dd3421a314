import { verifyDecision, type DecisionClaim } from '../signing/decision-signature';
import type { ActionDecisionInput } from './external-action.contract';

/** A signature older than this (by the workflow's clock) is refused: a stale or replayed one. */
const MAX_SIGNATURE_AGE_MS = 15 * 60_000;
/** How far ahead of the workflow's clock a signature may be (the api's clock runs ahead). */
const MAX_CLOCK_SKEW_MS = 5 * 60_000;

type DecisionKind = DecisionClaim['decision'];

/**
 * The action workflow's check of signed decisions: each must carry the api's Ed25519
 * signature over exactly what it claims, by one of `acceptedKeys` (the worker's own
 * configuration, as its first activity reported them: never a key from the workflow's
 * input), within the accepted window, used once. Deterministic: it runs in the workflow
 * sandbox, on the workflow's clock. The effect checks the same signatures again.
 */
export function createSignatureCheck(acceptedKeys: () => readonly string[], actionId: string) {
  const usedDecisionIds = new Set<string>();
  const verified = new Map<string, boolean>();
  return {
    /** Why the decision is refused, or null when its signature holds. */
    problemOf: (d: ActionDecisionInput, kind: DecisionKind): string | null => {
      if (!d.signature || !d.decision_id || !d.signed_at || !d.signer_key) {
        return `this ${kind} is not signed by the api; decide through the api`;
      }
      if (!acceptedKeys().includes(d.signer_key)) {
        return `this ${kind} is signed by key ${d.signer_key.slice(0, 16)}…, which the worker does not accept`;
      }
      if (usedDecisionIds.has(d.decision_id)) {
        return `decision ${d.decision_id} was used already (a replay)`;
      }
      const age = Date.now() - Date.parse(d.signed_at);
      if (!(age < MAX_SIGNATURE_AGE_MS && age > -MAX_CLOCK_SKEW_MS)) {
        return `the signature of ${d.signed_at} is outside the accepted window`;
      }
      const claim: DecisionClaim = {
        action_id: actionId,
        decision: kind,
        principal_id: d.principal_id,
        key_id: d.key_id,
        role: d.role ?? null,
        plan_digest: d.plan_digest ?? null,
        reason: d.reason ?? null,
        decision_id: d.decision_id,
        signed_at: d.signed_at,
      };
      // The validator and then the handler check each decision: verify its signature once.
      const key = `${kind}|${d.signer_key}|${d.signature}|${JSON.stringify(claim)}`;
      let valid = verified.get(key);
      if (valid === undefined) {
        valid = verifyDecision(d.signer_key, claim, d.signature);
        verified.set(key, valid);
      }
      return valid ? null : `the signature does not match this ${kind}`;
    },
    /** Records a decision taken, so the same signed decision cannot be used again. */
    markUsed: (decisionId: string): void => {
      usedDecisionIds.add(decisionId);
    },
  };
}
