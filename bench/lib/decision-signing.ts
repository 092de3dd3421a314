import { randomBytes } from 'node:crypto';
import { createDecisionSigner } from '../../src/auth/decision-signer';
import { verifyDecision } from '../../src/signing/decision-signature';

/**
 * What signed decisions cost one action, in ms: the api signs its two decisions (approve,
 * execute) and the workflow verifies each once, with the same code the service runs.
 */
export function decisionSigningMsPerAction(iterations = 200): number {
  const signer = createDecisionSigner(randomBytes(32));
  const claim = {
    action_id: 'act_01JZZZZZZZZZZZZZZZZZZZZZZZ',
    principal_id: 'prn_01JZZZZZZZZZZZZZZZZZZZZZZZ',
    key_id: 'a1b2c3d4e5f6',
    role: 'member',
    plan_digest: `sha256:${'0'.repeat(64)}`,
    reason: 'benchmark',
  };
  const once = () => {
    for (const decision of ['approve', 'execute'] as const) {
      const signed = signer.sign({ ...claim, decision });
      if (
        !verifyDecision(signer.publicKeyHex, { ...claim, decision, ...signed }, signed.signature)
      ) {
        throw new Error('signature did not verify');
      }
    }
  };
  for (let i = 0; i < 20; i += 1) once(); // warm the JIT and noble's tables
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i += 1) once();
  return Number(process.hrtime.bigint() - started) / 1e6 / iterations;
}
