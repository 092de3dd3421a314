import { randomBytes } from 'node:crypto';
import { createDecisionSigner, decisionSeed } from '../../src/auth/decision-signer';
import { verifyDecision, type DecisionClaim } from '../../src/signing/decision-signature';

const pepper = 'p'.repeat(64);
const claim = {
  action_id: 'act_01JZZZZZZZZZZZZZZZZZZZZZZZ',
  decision: 'approve' as const,
  principal_id: 'prn_01JZZZZZZZZZZZZZZZZZZZZZZZ',
  key_id: 'a1b2c3d4e5f6',
  role: 'member',
  plan_digest: `sha256:${'0'.repeat(64)}`,
  reason: 'ok\nwith a "quote"',
};

describe('decision signatures', () => {
  const signer = createDecisionSigner(decisionSeed({ keyPepper: pepper }));
  const signed = signer.sign(claim);
  const full: DecisionClaim = { ...claim, ...signed };

  it('verify with the public key over exactly the claimed fields', () => {
    expect(signer.publicKeyHex).toMatch(/^[0-9a-f]{64}$/);
    expect(signed.signature).toMatch(/^[0-9a-f]{128}$/);
    expect(verifyDecision(signer.publicKeyHex, full, signed.signature)).toBe(true);
    for (const edit of [
      { decision: 'reject' as const },
      { action_id: 'act_01JYYYYYYYYYYYYYYYYYYYYYYY' },
      { principal_id: 'prn_01JYYYYYYYYYYYYYYYYYYYYYYY' },
      { key_id: 'ffffffffffff' },
      { role: 'operator' },
      { plan_digest: null },
      { reason: 'ok' },
      { decision_id: 'dec_01JYYYYYYYYYYYYYYYYYYYYYYY' },
      { signed_at: new Date(0).toISOString() },
    ]) {
      expect(verifyDecision(signer.publicKeyHex, { ...full, ...edit }, signed.signature)).toBe(
        false,
      );
    }
  });

  it('refuse another key, and malformed signatures or keys, without throwing', () => {
    const other = createDecisionSigner(randomBytes(32));
    expect(verifyDecision(other.publicKeyHex, full, signed.signature)).toBe(false);
    expect(verifyDecision(signer.publicKeyHex, full, 'zz')).toBe(false);
    expect(verifyDecision(signer.publicKeyHex, full, signed.signature.slice(2))).toBe(false);
    expect(verifyDecision('00', full, signed.signature)).toBe(false);
  });

  it('keep one key per pepper unless DECISION_SIGNING_KEY names another', () => {
    const again = createDecisionSigner(decisionSeed({ keyPepper: pepper }));
    expect(again.publicKeyHex).toBe(signer.publicKeyHex);
    const seed = randomBytes(32);
    const explicit = decisionSeed({
      keyPepper: pepper,
      decisionSigningKey: seed.toString('base64'),
    });
    expect(explicit.equals(seed)).toBe(true);
    expect(createDecisionSigner(explicit).publicKeyHex).not.toBe(signer.publicKeyHex);
    const hex = decisionSeed({ keyPepper: pepper, decisionSigningKey: seed.toString('hex') });
    expect(hex.equals(seed)).toBe(true);
    expect(signer.sign(claim).decision_id).not.toBe(signed.decision_id);
  });
});
