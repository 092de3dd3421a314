import { createRecordSeal, recordSealKey } from '../../src/signing/record-seal';

const key = Buffer.alloc(32, 1);
const older = Buffer.alloc(32, 2);

describe('record seals', () => {
  const seal = createRecordSeal(key);
  const fields = { principal_id: 'prn_a', status: 'active', version: 1 };

  it('holds for the fields it was made over, and for nothing else', () => {
    const stamp = seal.stamp('api_keys', 'k1', fields);
    expect(seal.problem('api_keys', 'k1', fields, stamp)).toBeNull();
    expect(seal.problem('api_keys', 'k1', { ...fields, principal_id: 'prn_b' }, stamp)).toBe(
      'its seal does not match its fields',
    );
    // The id and the collection are sealed too: a copy under another id, or in another
    // collection, does not hold.
    expect(seal.problem('api_keys', 'k2', fields, stamp)).not.toBeNull();
    expect(seal.problem('principals', 'k1', fields, stamp)).not.toBeNull();
  });

  it('names a missing, malformed or foreign seal', () => {
    expect(seal.problem('api_keys', 'k1', fields, undefined)).toBe('it is not sealed');
    expect(seal.problem('api_keys', 'k1', fields, { key_id: 'x', mac: 'zz' })).toBe(
      'its seal is malformed',
    );
    const foreign = createRecordSeal(Buffer.alloc(32, 9)).stamp('api_keys', 'k1', fields);
    expect(seal.problem('api_keys', 'k1', fields, foreign)).toMatch(
      /which this service does not accept$/,
    );
  });

  it('accepts a previous key during a rotation, and says so', () => {
    const byOlder = createRecordSeal(older).stamp('api_keys', 'k1', fields);
    const rotating = createRecordSeal(key, [older]);
    expect(rotating.problem('api_keys', 'k1', fields, byOlder)).toBeNull();
    expect(rotating.byPreviousKey(byOlder)).toBe(true);
    expect(rotating.byPreviousKey(rotating.stamp('api_keys', 'k1', fields))).toBe(false);
  });

  it('derives its key from the ledger seed under its own label unless one is configured', () => {
    const ledgerSeed = Buffer.alloc(32, 7);
    const derived = recordSealKey({}, ledgerSeed);
    expect(derived).toHaveLength(32);
    expect(derived.equals(ledgerSeed)).toBe(false);
    expect(recordSealKey({ recordSealKey: '11'.repeat(32) }, ledgerSeed)).toEqual(key.fill(0x11));
  });
});
