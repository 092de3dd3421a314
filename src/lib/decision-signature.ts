import { ed25519 } from '@noble/curves/ed25519';

/**
 * What a signed decision binds: who decided what on which action and plan, why, and when.
 * The api signs it (Ed25519, `src/auth/decision-signer.ts`); the action workflow verifies
 * it with the public key from its input, so an update sent around the api (the Temporal UI's
 * "Send an Update", the CLI) is refused. Pure and deterministic: it runs in the workflow
 * sandbox (no Buffer, no node:crypto), so keys and signatures travel as hex.
 */
export interface DecisionClaim {
  action_id: string;
  decision: 'approve' | 'reject' | 'execute';
  principal_id: string;
  key_id: string;
  /** The decider's role as the api authenticated it (approval rules may admit roles). */
  role: string | null;
  plan_digest: string | null;
  reason: string | null;
  /** Unique per decision: the workflow refuses a second use (a replay). */
  decision_id: string;
  /** ISO 8601; the workflow refuses a signature much older than its own clock. */
  signed_at: string;
}

export const DECISION_SIGNATURE_VERSION = 'governed-runtime/decision/v1';

/** The signed bytes: the claim's fields in a fixed order, as a JSON array (UTF-8). */
export function decisionMessage(claim: DecisionClaim): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify([
      DECISION_SIGNATURE_VERSION,
      claim.action_id,
      claim.decision,
      claim.principal_id,
      claim.key_id,
      claim.role,
      claim.plan_digest,
      claim.reason,
      claim.decision_id,
      claim.signed_at,
    ]),
  );
}

const HEX = /^(?:[0-9a-f]{2})+$/;

/** True when `signatureHex` is the key's Ed25519 signature of the claim. */
export function verifyDecision(
  publicKeyHex: string,
  claim: DecisionClaim,
  signatureHex: string,
): boolean {
  if (!HEX.test(signatureHex) || signatureHex.length !== 128) return false;
  try {
    return ed25519.verify(signatureHex, decisionMessage(claim), publicKeyHex);
  } catch {
    return false;
  }
}
