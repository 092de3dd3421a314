import { createPrivateKey, createPublicKey, hkdfSync, sign } from 'node:crypto';
import { decisionMessage, type DecisionClaim } from '../signing/decision-signature';
import { newId } from '../lib/ids';
import { claimMessage, type ClaimKind, type ClaimSignature } from '../signing/signed-claims';

/** The signature fields a forwarded decision carries. */
export interface DecisionSignature {
  decision_id: string;
  signed_at: string;
  /** Ed25519 over `decisionMessage`, hex. */
  signature: string;
  /** The public key that signed it, hex (the verifier accepts it only from its own list). */
  signer_key: string;
}

export interface DecisionSigner {
  /** The raw 32-byte public key, hex: what verifiers list among their accepted keys. */
  publicKeyHex: string;
  /** The same public key as PEM (SPKI), for `openssl pkeyutl -verify`. */
  publicKeyPem: string;
  sign(claim: Omit<DecisionClaim, 'decision_id' | 'signed_at'>): DecisionSignature;
  /** Signs a proposal or a repair request (`src/signing/signed-claims.ts`), now. */
  signClaim(kind: ClaimKind, claim: object): ClaimSignature;
  /** Ed25519 over any message (a repair certificate), hex: the same key signs both. */
  signMessage(message: Uint8Array): string;
}

// PKCS#8 DER header of an Ed25519 private key; the 32-byte seed follows it.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The signing seed: `DECISION_SIGNING_KEY` (32 bytes, hex or base64) when set, as production should;
 * otherwise derived from `KEY_PEPPER` with HKDF, so the embedded default keeps one key across
 * restarts without a second secret to keep. Changing either changes the public key: keep the
 * old one in the workers' `DECISION_VERIFY_KEYS` until the actions it signed have ended
 * (docs/actions.md, key rotation).
 */
export function decisionSeed(config: { decisionSigningKey?: string; keyPepper: string }): Buffer {
  const key = config.decisionSigningKey;
  if (key) return Buffer.from(key, /^[0-9a-f]{64}$/.test(key) ? 'hex' : 'base64');
  return Buffer.from(
    hkdfSync('sha256', config.keyPepper, 'governed-runtime', 'decision-signing/v1', 32),
  );
}

export function createDecisionSigner(seed: Buffer): DecisionSigner {
  if (seed.length !== 32) throw new Error('the decision signing key must be 32 bytes');
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = createPublicKey(privateKey);
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  const publicKeyHex = spki.subarray(spki.length - 32).toString('hex');
  return {
    publicKeyHex,
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    signMessage: (message) => sign(null, message, privateKey).toString('hex'),
    sign(claim) {
      const full: DecisionClaim = {
        ...claim,
        decision_id: newId('dec'),
        signed_at: new Date().toISOString(),
      };
      return {
        decision_id: full.decision_id,
        signed_at: full.signed_at,
        signature: sign(null, decisionMessage(full), privateKey).toString('hex'),
        signer_key: publicKeyHex,
      };
    },
    signClaim(kind, claim) {
      const signedAt = new Date().toISOString();
      return {
        signed_at: signedAt,
        signer_key: publicKeyHex,
        signature: sign(null, claimMessage(kind, claim, signedAt), privateKey).toString('hex'),
      };
    },
  };
}

/**
 * The public keys a verifier (the worker, a proof check) accepts signatures from: the
 * configured `DECISION_VERIFY_KEYS`, or else the public key of its own signing seed. Never
 * a key named by the signed thing itself.
 */
export function acceptedSignerKeys(
  config: { decisionVerifyKeys?: readonly string[] },
  own: Pick<DecisionSigner, 'publicKeyHex'>,
): string[] {
  return config.decisionVerifyKeys?.length ? [...config.decisionVerifyKeys] : [own.publicKeyHex];
}
