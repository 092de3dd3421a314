import { generateKeyPairSync, sign } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { verifyEd25519 } from '../../src/signing/ed25519-node';

const rawHex = (publicKey: ReturnType<typeof generateKeyPairSync>['publicKey']): string =>
  Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('hex');

describe('verifyEd25519 (node:crypto, for approver keys)', () => {
  const pairs = [0, 1, 2].map(() => generateKeyPairSync('ed25519'));
  const keys = pairs.map((pair) => rawHex(pair.publicKey));

  it('answers as the sandbox library does for valid, edited and foreign signatures', () => {
    let valid = 0;
    for (let n = 0; n < 30; n += 1) {
      const signer = n % pairs.length;
      const message = Buffer.from(`["governed-runtime/approver/v1","act_${n}","approve"]`);
      const signature = sign(null, message, pairs[signer].privateKey).toString('hex');
      const flipped = Buffer.from(signature, 'hex');
      flipped[n % 64] ^= 1 << (n % 8);
      const cases: Array<[string, Uint8Array, string]> = [
        [keys[signer], message, signature],
        [keys[(signer + 1) % keys.length], message, signature],
        [keys[signer], Buffer.from(`${message.toString()} `), signature],
        [keys[signer], message, flipped.toString('hex')],
      ];
      for (const [key, bytes, sig] of cases) {
        const expected = ed25519.verify(sig, bytes, key);
        expect(verifyEd25519(key, bytes, sig)).toBe(expected);
        if (expected) valid += 1;
      }
    }
    expect(valid).toBe(30);
  });

  it('refuses malformed keys and signatures instead of throwing', () => {
    const message = Buffer.from('m');
    const signature = sign(null, message, pairs[0].privateKey).toString('hex');
    expect(verifyEd25519(keys[0], message, signature)).toBe(true);
    expect(verifyEd25519(keys[0].toUpperCase(), message, signature)).toBe(false);
    expect(verifyEd25519(keys[0].slice(2), message, signature)).toBe(false);
    expect(verifyEd25519(keys[0], message, signature.slice(2))).toBe(false);
    expect(verifyEd25519(keys[0], message, 'zz'.repeat(64))).toBe(false);
    // S ≥ L (not reduced): refused, as the sandbox library refuses it.
    const unreduced = Buffer.from(signature, 'hex');
    unreduced.fill(0xff, 32);
    expect(verifyEd25519(keys[0], message, unreduced.toString('hex'))).toBe(false);
  });
});
