import {
  digestsEqual,
  hashApiKey,
  mintApiKey,
  newKeyId,
  parseApiKey,
} from '../../src/auth/api-key';

describe('api key format', () => {
  it('mints keys that parse back to their key id', () => {
    const keyId = newKeyId();
    const key = mintApiKey(keyId);
    expect(key).toMatch(/^grk_[0-9a-f]{12}_[0-9A-Za-z]{38}$/);
    expect(parseApiKey(key)).toEqual({ keyId, full: key });
  });

  it('rejects a key whose checksum does not match, without any lookup', () => {
    const key = mintApiKey(newKeyId());
    const flipped = key.slice(0, 20) + (key[20] === 'a' ? 'b' : 'a') + key.slice(21);
    expect(parseApiKey(flipped)).toBeUndefined();
    expect(parseApiKey(key.slice(0, -1))).toBeUndefined();
    expect(parseApiKey('grk_zzzzzzzzzzzz_' + 'a'.repeat(38))).toBeUndefined();
    expect(parseApiKey('not a key')).toBeUndefined();
  });

  it('hashes under the pepper, and compares in constant time', () => {
    const key = mintApiKey(newKeyId());
    const a = hashApiKey(key, 'pepper-one-0123456789abcdef0123456789');
    const b = hashApiKey(key, 'pepper-two-0123456789abcdef0123456789');
    expect(a).not.toEqual(b);
    expect(digestsEqual(a, hashApiKey(key, 'pepper-one-0123456789abcdef0123456789'))).toBe(true);
    expect(digestsEqual(a, b)).toBe(false);
  });
});
