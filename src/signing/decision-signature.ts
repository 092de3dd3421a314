import { ed25519 } from '@noble/curves/ed25519';
import { bytesToNumberLE, concatBytes, hexToBytes } from '@noble/curves/utils';
import { sha512 } from '@noble/hashes/sha2';

/**
 * What a signed decision binds: who decided what on which action and plan, why, and when.
 * The api signs it (Ed25519, `src/auth/decision-signer.ts`); the worker verifies it with the
 * keys of its own configuration, never with anything a workflow's input names, so an update
 * sent around the api (the Temporal UI's "Send an Update", the CLI) is refused. Pure and deterministic: it runs in the workflow
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

type EdPoint = InstanceType<typeof ed25519.Point>;

/**
 * Public keys parsed once, each with its multiples precomputed: a verification's `[k]A` is
 * then a windowed sum instead of a double-and-add ladder, several times cheaper per
 * verification, which matters most inside the sandbox. The service has one decision
 * key, a rotation adds one more. Inside the workflow sandbox this cache outlives a workflow
 * (module state is shared when V8 contexts are reused); it only memoizes a pure function,
 * so no workflow's behaviour depends on it.
 */
const publicKeyPoints = new Map<string, EdPoint>();
const MAX_CACHED_KEYS = 8;

function publicKeyPoint(publicKeyHex: string): EdPoint {
  let point = publicKeyPoints.get(publicKeyHex);
  if (!point) {
    point = ed25519.Point.fromBytes(hexToBytes(publicKeyHex), true).precompute(8, false);
    if (publicKeyPoints.size >= MAX_CACHED_KEYS) publicKeyPoints.clear();
    publicKeyPoints.set(publicKeyHex, point);
  }
  return point;
}

/**
 * True when `signatureHex` is the key's Ed25519 signature of `message`. The same check as
 * `ed25519.verify` with its defaults (ZIP 215 decoding, `[8][S]B = [8]R + [8][k]A`), over a
 * precomputed public key; the tests hold the two to the same answers.
 */
export function verifySignature(
  publicKeyHex: string,
  message: Uint8Array,
  signatureHex: string,
): boolean {
  if (!HEX.test(signatureHex) || signatureHex.length !== 128) return false;
  if (!HEX.test(publicKeyHex) || publicKeyHex.length !== 64) return false;
  try {
    const A = publicKeyPoint(publicKeyHex);
    const signature = hexToBytes(signatureHex);
    const R = ed25519.Point.fromBytes(signature.subarray(0, 32), true);
    // Throws unless 0 <= S < L.
    const SB = ed25519.Point.BASE.multiplyUnsafe(bytesToNumberLE(signature.subarray(32)));
    const hash = sha512(concatBytes(R.toBytes(), A.toBytes(), message));
    const k = ed25519.Point.Fn.create(bytesToNumberLE(hash));
    return R.add(A.multiplyUnsafe(k)).subtract(SB).clearCofactor().is0();
  } catch {
    return false;
  }
}

/** True when `signatureHex` is the key's Ed25519 signature of the decision claim. */
export const verifyDecision = (
  publicKeyHex: string,
  claim: DecisionClaim,
  signatureHex: string,
): boolean => verifySignature(publicKeyHex, decisionMessage(claim), signatureHex);
