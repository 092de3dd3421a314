import { resolve } from 'node:path';
import { decisionSeed } from '../../../src/auth/decision-signer';
import { loadConfig } from '../../../src/config';
import {
  createLedgerSeal,
  ledgerDigestHolds,
  ledgerSealSeed,
  sealProblem,
} from '../../../src/domain/external-actions/ledger-seal';
import { canonicalDigest } from '../../../src/lib/canonical-digest';

// The ledger seal key's configuration (docs/configuration.md) and what a seal binds.

const pepper = 'x'.repeat(40);
const KEY = 'ab'.repeat(32);

describe('ledger seal configuration', () => {
  it('defaults: a key derived from KEY_PEPPER (not the decision key), checkpoints under .data', () => {
    const config = loadConfig({ KEY_PEPPER: pepper });
    expect(config.ledgerCheckpointDir).toBe(resolve('.data/ledger-checkpoints'));
    expect(config.ledgerSealKey).toBeUndefined();
    const seed = ledgerSealSeed(config);
    expect(seed).toHaveLength(32);
    expect(seed.equals(ledgerSealSeed({ keyPepper: pepper }))).toBe(true);
    expect(seed.equals(decisionSeed(config))).toBe(false);
  });

  it('takes LEDGER_SEAL_KEY (hex or base64), LEDGER_SEAL_VERIFY_KEYS and LEDGER_CHECKPOINT_DIR', () => {
    const config = loadConfig({
      KEY_PEPPER: pepper,
      LEDGER_SEAL_KEY: KEY,
      LEDGER_SEAL_VERIFY_KEYS: `${'01'.repeat(32)},${'02'.repeat(32)}`,
      LEDGER_CHECKPOINT_DIR: '/var/lib/gr/checkpoints',
    });
    expect(ledgerSealSeed(config).toString('hex')).toBe(KEY);
    expect(config.ledgerSealVerifyKeys).toEqual(['01'.repeat(32), '02'.repeat(32)]);
    expect(config.ledgerCheckpointDir).toBe('/var/lib/gr/checkpoints');
    const base64 = Buffer.from(KEY, 'hex').toString('base64');
    expect(ledgerSealSeed({ keyPepper: pepper, ledgerSealKey: base64 }).toString('hex')).toBe(KEY);
  });

  it.each([
    [{ LEDGER_SEAL_KEY: 'short' }, 'LEDGER_SEAL_KEY'],
    [{ LEDGER_SEAL_VERIFY_KEYS: 'zz' }, 'LEDGER_SEAL_VERIFY_KEYS'],
  ])('names the bad variable in %j', (env, name) => {
    expect(() => loadConfig({ KEY_PEPPER: pepper, ...env })).toThrow(new RegExp(`${name}:`));
  });
});

describe('a seal', () => {
  const seal = createLedgerSeal({
    seed: Buffer.from(KEY, 'hex'),
    checkpointDir: '/nonexistent',
    database: 'db',
  });
  const body = { _id: 'act_a:1', action_id: 'act_a', seq: 1, prev_digest: null, detail: {} };
  const digest = canonicalDigest(body);
  const entry = { ...body, digest, seal: seal.seal(body._id, digest) };

  it('verifies with its key, and is outside the digest', () => {
    expect(entry.seal.key_id).toBe(seal.keyId);
    expect(sealProblem(seal.acceptedKeys, entry)).toBeNull();
    expect(ledgerDigestHolds(entry)).toBe(true);
  });

  it('binds the entry id and the digest', () => {
    expect(sealProblem(seal.acceptedKeys, { ...entry, _id: 'act_b:1' })).toMatch(/does not verify/);
    const otherDigest = canonicalDigest({ ...body, detail: { reason: 'x' } });
    expect(sealProblem(seal.acceptedKeys, { ...entry, digest: otherDigest })).toMatch(
      /does not verify/,
    );
  });

  it('holds only with an accepted key', () => {
    expect(sealProblem(['cd'.repeat(32)], entry)).toMatch(/which this service does not accept/);
    expect(sealProblem(seal.acceptedKeys, { ...entry, seal: { key_id: seal.keyId } })).toBe(
      'its seal is malformed',
    );
    expect(sealProblem(seal.acceptedKeys, { ...entry, seal: null })).toBe('its seal is malformed');
  });
});
