import { sha256 } from '@noble/hashes/sha2';

/**
 * The bytes an approver signs with their own key to approve or reject an action
 * (docs/approvals.md, "Decisions signed by the approver"). Defined once, here: the api
 * builds them when it issues a challenge, and every verifier (the api at the decision, the
 * worker's effect check, the `approver_signatures` proof, a person with openssl) rebuilds
 * them from what it knows itself, never from bytes the signer hands over.
 *
 * The message is the UTF-8 of this JSON array, as `JSON.stringify` writes it (no spaces):
 *
 *   ["governed-runtime/approver-decision/v1", action_id, decision, plan_digest,
 *    rule_id, rule_version, principal_id, nonce, expires_at]
 *
 * `rule_id` and `rule_version` are null when no rule governs the action. An Ed25519 key
 * signs the message itself; a passkey signs it through WebAuthn, whose `challenge` is the
 * SHA-256 of the message (32 bytes, base64url in `clientDataJSON`). Pure: no Node APIs.
 */
export const APPROVER_CHALLENGE_VERSION = 'governed-runtime/approver-decision/v1';

export interface ApproverChallenge {
  action_id: string;
  decision: 'approve' | 'reject';
  plan_digest: string;
  rule_id: string | null;
  rule_version: number | null;
  principal_id: string;
  /** Server-issued, single use (`ach_…`). */
  nonce: string;
  /** ISO 8601: the api refuses the assertion after this instant. */
  expires_at: string;
}

/** The canonical bytes of a challenge. */
export function approverChallengeMessage(challenge: ApproverChallenge): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify([
      APPROVER_CHALLENGE_VERSION,
      challenge.action_id,
      challenge.decision,
      challenge.plan_digest,
      challenge.rule_id,
      challenge.rule_version,
      challenge.principal_id,
      challenge.nonce,
      challenge.expires_at,
    ]),
  );
}

/** base64url without padding (WebAuthn's encoding of binary fields). */
export function toBase64Url(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let c = 0; c < chars; c++) out += alphabet[(n >> (18 - 6 * c)) & 63];
  }
  return out;
}

/** The WebAuthn `challenge` of a challenge: SHA-256 of its bytes, base64url. */
export const webauthnChallengeOf = (challenge: ApproverChallenge): string =>
  toBase64Url(sha256(approverChallengeMessage(challenge)));

/**
 * What a decision carries to show the approver made it: which of their keys, the
 * challenge's nonce and expiry (the rest of the challenge the verifier knows itself), and
 * the signature: `signature` (Ed25519, hex) or `webauthn` (an assertion, base64url fields).
 */
export interface ApproverAssertion {
  key_id: string;
  nonce: string;
  expires_at: string;
  signature?: string;
  webauthn?: {
    credential_id: string;
    authenticator_data: string;
    client_data_json: string;
    signature: string;
    user_handle?: string;
  };
}
