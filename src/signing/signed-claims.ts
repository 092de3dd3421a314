import stringify from 'safe-stable-stringify';
import { verifyEd25519 } from './ed25519-node';

/**
 * Claims the api signs besides decisions: an action's proposal, and a repair request (which
 * vouches for the child action its repair proposes). The signed bytes are the canonical JSON
 * (keys sorted, no spaces) of `["governed-runtime/<kind>/v1", claim]`, the claim with its
 * `signed_at`; docs/actions.md gives the recipe to verify one by hand.
 */
export type ClaimKind = 'proposal' | 'repair-request';

/** What a signed claim carries beside its content. */
export interface ClaimSignature {
  /** ISO 8601, part of the signed bytes. */
  signed_at: string;
  /** The signing key's raw Ed25519 public key, hex: which accepted key to check against. */
  signer_key: string;
  /** Ed25519 over `claimMessage`, hex. */
  signature: string;
}

export function claimMessage(kind: ClaimKind, claim: object, signedAt: string): Uint8Array {
  return new TextEncoder().encode(
    stringify([`governed-runtime/${kind}/v1`, { ...claim, signed_at: signedAt }]) ?? '',
  );
}

/**
 * Why a signature does not hold against the accepted keys, or null when it does: the signer
 * must be one of `acceptedKeys` (the verifier's own configuration, never the claim's).
 * Outside the workflow sandbox only: it verifies with Node's crypto (OpenSSL's strict
 * RFC 8032 check), several times cheaper than the sandbox's pure-JavaScript verifier and
 * never more permissive (every signature it accepts, ZIP 215 accepts too), so an effect's
 * check is at least as strict as the workflow's.
 */
export function signatureProblem(
  acceptedKeys: readonly string[],
  message: Uint8Array,
  signature: Partial<ClaimSignature> | null | undefined,
  what: string,
): string | null {
  if (!signature?.signature || !signature.signer_key || !signature.signed_at) {
    return `${what} is not signed by the api`;
  }
  if (!acceptedKeys.includes(signature.signer_key)) {
    return `${what} is signed by key ${signature.signer_key.slice(0, 16)}…, which this service does not accept`;
  }
  return verifyEd25519(signature.signer_key, message, signature.signature)
    ? null
    : `the signature does not match ${what}`;
}
