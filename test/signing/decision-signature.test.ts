import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils';
import {
  decisionMessage,
  verifyDecision,
  type DecisionClaim,
} from '../../src/signing/decision-signature';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

const claimOf = (n: number): DecisionClaim => ({
  action_id: `act_${String(n).padStart(26, '0')}`,
  decision: n % 2 === 0 ? 'approve' : 'execute',
  principal_id: 'prn_01JZZZZZZZZZZZZZZZZZZZZZZZ',
  key_id: 'a1b2c3d4e5f6',
  role: null,
  plan_digest: `sha256:${String(n).repeat(64).slice(0, 64)}`,
  reason: n % 3 === 0 ? null : `reason ${n}`,
  decision_id: `dec_${String(n).padStart(26, '0')}`,
  signed_at: new Date(n * 1000).toISOString(),
});

/** The library's own verification of the same bytes: the answer ours must give. */
const libraryVerdict = (publicKeyHex: string, claim: DecisionClaim, signatureHex: string) => {
  try {
    return ed25519.verify(signatureHex, decisionMessage(claim), publicKeyHex);
  } catch {
    return false;
  }
};

describe('verifyDecision (precomputed public key)', () => {
  const secrets = [randomBytes(32), randomBytes(32), randomBytes(32)];
  const keys = secrets.map((secret) => hex(ed25519.getPublicKey(secret)));

  it('answers as ed25519.verify for valid, edited and foreign signatures', () => {
    let valid = 0;
    for (let n = 0; n < 60; n += 1) {
      const signer = n % secrets.length;
      const claim = claimOf(n);
      const signature = hex(ed25519.sign(decisionMessage(claim), secrets[signer]));
      const bytes = Buffer.from(signature, 'hex');
      bytes[n % 64] ^= 1 << (n % 8);
      const cases: Array<[string, DecisionClaim, string]> = [
        [keys[signer], claim, signature],
        [keys[(signer + 1) % keys.length], claim, signature],
        [keys[signer], claimOf(n + 1), signature],
        [keys[signer], claim, bytes.toString('hex')],
      ];
      for (const [key, asked, sig] of cases) {
        const expected = libraryVerdict(key, asked, sig);
        expect(verifyDecision(key, asked, sig)).toBe(expected);
        if (expected) valid += 1;
      }
    }
    // The valid ones (about one case in four) were valid; the rest refused.
    expect(valid).toBe(60);
  });

  it('refuses a non-canonical S (S + L) as the library does', () => {
    const claim = claimOf(7);
    const signature = ed25519.sign(decisionMessage(claim), secrets[0]);
    const s = bytesToNumberLE(signature.subarray(32)) + ed25519.Point.Fn.ORDER;
    const forged = hex(signature.subarray(0, 32)) + hex(numberToBytesLE(s, 32));
    expect(libraryVerdict(keys[0], claim, forged)).toBe(false);
    expect(verifyDecision(keys[0], claim, forged)).toBe(false);
  });

  it('answers as the library for a small-order public key and an undecodable R', () => {
    const claim = claimOf(9);
    const identity = `01${'00'.repeat(31)}`;
    // With A the identity, [S]B = R for S = 0 and R = the identity encoding.
    const trivial = identity + '00'.repeat(32);
    expect(verifyDecision(identity, claim, trivial)).toBe(libraryVerdict(identity, claim, trivial));
    const undecodable = 'ff'.repeat(32) + '00'.repeat(32);
    expect(verifyDecision(keys[0], claim, undecodable)).toBe(false);
    expect(libraryVerdict(keys[0], claim, undecodable)).toBe(false);
  });

  it('refuses malformed keys without throwing', () => {
    const claim = claimOf(3);
    const signature = hex(ed25519.sign(decisionMessage(claim), secrets[0]));
    expect(verifyDecision('00', claim, signature)).toBe(false);
    expect(verifyDecision('zz'.repeat(32), claim, signature)).toBe(false);
    expect(verifyDecision('ff'.repeat(32), claim, signature)).toBe(false);
  });
});
