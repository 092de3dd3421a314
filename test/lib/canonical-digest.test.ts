import { createHash } from 'node:crypto';
import { canonicalDigest, digestHolds } from '../../src/lib/canonical-digest';

describe('canonicalDigest', () => {
  it('is sha256 of the JSON with keys sorted and no spaces, whatever the key order', () => {
    const expected = `sha256:${createHash('sha256').update('{"a":1,"b":{"c":[1,2],"d":null}}').digest('hex')}`;
    expect(canonicalDigest({ b: { d: null, c: [1, 2] }, a: 1 })).toBe(expected);
    expect(canonicalDigest({ a: 1, b: { c: [1, 2], d: null } })).toBe(expected);
  });
});

describe('digestHolds', () => {
  const body = { seq: 2, prev_digest: 'sha256:00', event: 'approved' };

  it('holds for an entry whose digest covers the rest of it', () => {
    expect(digestHolds({ ...body, digest: canonicalDigest(body) })).toBe(true);
  });

  it('fails when any other field changed, prev_digest included', () => {
    const digest = canonicalDigest(body);
    const otherEvent = { ...body, event: 'rejected', digest };
    const otherPrevious = { ...body, prev_digest: 'sha256:01', digest };
    expect(digestHolds(otherEvent)).toBe(false);
    expect(digestHolds(otherPrevious)).toBe(false);
  });
});
