import { createAuthenticator } from '../../src/auth/authenticator';
import { hashApiKey, mintApiKey } from '../../src/auth/api-key';
import type { ApiKeysRepo, ApiKeyRecord } from '../../src/store/api-keys.repo';
import type { OrganizationsRepo } from '../../src/store/organizations.repo';
import type { PrincipalsRepo } from '../../src/store/principals.repo';
import { Unauthorized } from '../../src/lib/errors';

// The authenticator's own logic over in-memory repositories (no server): what it checks,
// in what order, and when it reads the store.
const PEPPER = 'unit-pepper-0123456789abcdef0123456789abcdef';
const stamp = '2026-01-01T00:00:00.000Z';

/** `holdFirstRead`: the first read of the key returns only once `release` is called. */
function world(options: { cacheTtlMs?: number; holdFirstRead?: boolean } = {}) {
  const keyId = 'a1b2c3d4e5f6';
  const secret = mintApiKey(keyId);
  const key: ApiKeyRecord = {
    _id: keyId,
    secret_hash: hashApiKey(secret, PEPPER),
    principal_id: 'prn_1',
    organization_id: 'org_1',
    entitlement: 'institutional',
    access_layer: 1,
    status: 'active',
    created_at: stamp,
    updated_at: stamp,
  };
  const principal = { _id: 'prn_1', status: 'active', role: 'member' };
  const organization = { _id: 'org_1', status: 'active' };
  let reads = 0;
  let release = (): void => undefined;
  const held = options.holdFirstRead
    ? new Promise<void>((resolve) => (release = resolve))
    : undefined;
  const clock = { now: Date.parse('2026-06-01T00:00:00.000Z') };
  const authenticator = createAuthenticator({
    apiKeys: {
      findById: async (id: string) => {
        reads += 1;
        const found = id === key._id ? { ...key } : null;
        if (held && reads === 1) await held;
        return found;
      },
    } as unknown as ApiKeysRepo,
    principals: { findById: async () => principal } as unknown as PrincipalsRepo,
    organizations: { findById: async () => organization } as unknown as OrganizationsRepo,
    pepper: PEPPER,
    adminApiKey: undefined,
    quotaPolicies: { activeFor: async () => [] },
    cacheTtlMs: options.cacheTtlMs ?? 50,
    now: () => clock.now,
  });
  return {
    key,
    secret,
    principal,
    organization,
    clock,
    authenticator,
    reads: () => reads,
    release: () => release(),
  };
}

const refusal = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(Unauthorized);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('the authenticator', () => {
  it('resolves a valid key to who is calling, with the class limits', async () => {
    const { authenticator, secret } = world();
    await expect(authenticator.authenticate(secret)).resolves.toMatchObject({
      keyId: 'a1b2c3d4e5f6',
      principalId: 'prn_1',
      organizationId: 'org_1',
      entitlement: 'institutional',
    });
  });

  it('refuses a missing or malformed key without reading the store', async () => {
    const { authenticator, reads } = world();
    expect(await refusal(authenticator.authenticate(undefined))).toMatch(/missing/);
    expect(await refusal(authenticator.authenticate('grk_nothex_short'))).toMatch(/malformed/);
    expect(reads()).toBe(0);
  });

  it('refuses a wrong secret for a real key id as unknown', async () => {
    const { authenticator } = world();
    const forged = mintApiKey('a1b2c3d4e5f6');
    expect(await refusal(authenticator.authenticate(forged))).toMatch(/unknown/);
  });

  it('trusts a looked-up key for the cache TTL, then reads it again', async () => {
    const { authenticator, secret, key, reads } = world();
    await authenticator.authenticate(secret);
    key.status = 'suspended';
    await expect(authenticator.authenticate(secret)).resolves.toBeDefined();
    expect(reads()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 120)); // past the 50 ms TTL
    expect(await refusal(authenticator.authenticate(secret))).toMatch(/suspended/);
    expect(reads()).toBe(2);
  });

  it('reads an uncached key once for the requests that miss the cache together', async () => {
    const { authenticator, secret, reads } = world();
    const callers = await Promise.all(
      Array.from({ length: 10 }, () => authenticator.authenticate(secret)),
    );
    expect(callers.map((auth) => auth.keyId)).toEqual(Array(10).fill('a1b2c3d4e5f6'));
    expect(reads()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 120)); // past the 50 ms TTL
    await Promise.all(Array.from({ length: 10 }, () => authenticator.authenticate(secret)));
    expect(reads()).toBe(2);
  });

  it('serves nobody after invalidateAll from a read begun before it', async () => {
    const { authenticator, secret, key, reads, release } = world({
      cacheTtlMs: 60_000,
      holdFirstRead: true,
    });
    const before = authenticator.authenticate(secret); // reads the key while it is active
    key.status = 'revoked';
    authenticator.invalidateAll();
    expect(await refusal(authenticator.authenticate(secret))).toMatch(/revoked/);
    release();
    await expect(before).resolves.toBeDefined(); // it came before the change
    expect(reads()).toBe(2);
    // The older read, finishing last, did not fill the cache with the active key.
    expect(await refusal(authenticator.authenticate(secret))).toMatch(/revoked/);
  });

  it('refuses expired keys and keys of inactive principals or organizations', async () => {
    const expired = world();
    expired.key.expires_at = '2026-05-01T00:00:00.000Z';
    expect(await refusal(expired.authenticator.authenticate(expired.secret))).toMatch(/expired/);
    const orphan = world();
    orphan.principal.status = 'suspended';
    expect(await refusal(orphan.authenticator.authenticate(orphan.secret))).toMatch(/principal/);
    const closed = world();
    closed.organization.status = 'archived';
    expect(await refusal(closed.authenticator.authenticate(closed.secret))).toMatch(/organization/);
  });
});
