import { createHash, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppError, RecordIntegrityError, Unauthorized } from '../lib/errors';
import type { ApiKeyRecord } from '../store/api-keys.repo';
import type { OrganizationsRepo } from '../store/organizations.repo';
import type { PrincipalsRepo, Principal } from '../store/principals.repo';
import type { ApiKeysRepo } from '../store/api-keys.repo';
import type { Organization } from '../store/organizations.repo';
import type { QuotaPoliciesRepo } from '../store/quota-policies.repo';
import { digestsEqual, hashApiKey, parseApiKey } from './api-key';
import type { AuthContext } from './auth-context';
import { effectiveLimits } from './effective-limits';
import type { KeyLimits } from './limits';

/** A key with the principal and organization its validity depends on. */
interface KeyBundle {
  key: ApiKeyRecord;
  principal: Principal | null;
  organization: Organization | null;
  limits: KeyLimits;
  /**
   * The last key presented that matched this record, compared in constant time instead of
   * hashing the next presentation again (the HMAC was the dearest step of a cached check).
   * It lives as long as the cached record: `cacheTtlMs`, or until `invalidateAll`.
   */
  verified?: { presented: Buffer; previous: boolean };
}

/**
 * A key that is not there, or whose record (or its principal's, organization's or a limit's)
 * failed its seal check: refused until the entry expires, then read again.
 */
type CacheEntry = KeyBundle | { missing: true } | { refused: RecordIntegrityError };

export interface AuthenticatorOptions {
  apiKeys: ApiKeysRepo;
  principals: PrincipalsRepo;
  organizations: OrganizationsRepo;
  pepper: string;
  adminApiKey: string | undefined;
  /** How long a looked-up key is trusted before it is read again (the revocation bound). */
  cacheTtlMs: number;
  /** The quota policies a key's limits come from (`effectiveLimits`). */
  quotaPolicies: Pick<QuotaPoliciesRepo, 'activeFor'>;
  now?: () => number;
}

export type Authenticator = ReturnType<typeof createAuthenticator>;

const unauthorized = (message: string): AppError => new Unauthorized(message);

/** Key id of the bootstrap operator key seeded from ADMIN_API_KEY. */
export function bootstrapKeyId(adminApiKey: string): string {
  return (
    parseApiKey(adminApiKey)?.keyId ??
    createHash('sha256').update(adminApiKey).digest('hex').slice(0, 12)
  );
}

/**
 * Verifies `X-API-Key` values. Malformed keys fail on their checksum with no lookup; a
 * looked-up key (or its absence) is cached for `cacheTtlMs`, so a status change made on
 * another instance takes effect within that bound, and at once on the instance that made it.
 */
export function createAuthenticator(options: AuthenticatorOptions) {
  const now = options.now ?? Date.now;
  const cache = new LRUCache<string, CacheEntry>({
    max: 50_000,
    ttl: Math.max(1, options.cacheTtlMs),
    ttlAutopurge: false,
    // Read the clock on every lookup: the default caches it for 1 ms behind a timer, which
    // under load arms a timer every millisecond, a cost on the request's path.
    ttlResolution: 0,
  });
  const adminKeyId = options.adminApiKey ? bootstrapKeyId(options.adminApiKey) : undefined;

  /**
   * Reads in flight by key id: requests that miss the cache together (every request of a
   * busy key when its entry expires) share one read instead of each reading the key, its
   * principal, organization and limits. `invalidateAll` starts a new generation: a read
   * begun before it neither fills the cache nor serves a request that comes after it.
   */
  const loading = new Map<string, Promise<CacheEntry>>();
  let generation = 0;

  function loadOnce(keyId: string): Promise<CacheEntry> {
    const inFlight = loading.get(keyId);
    if (inFlight) return inFlight;
    const pending = load(keyId, generation).finally(() => {
      if (loading.get(keyId) === pending) loading.delete(keyId);
    });
    loading.set(keyId, pending);
    return pending;
  }

  /** The key and what its validity depends on, each checked against its seal. */
  async function read(keyId: string): Promise<CacheEntry> {
    const key = await options.apiKeys.findById(keyId);
    if (!key) return { missing: true };
    const [principal, organization, { limits }] = await Promise.all([
      options.principals.findById(key.principal_id),
      options.organizations.findById(key.organization_id),
      effectiveLimits(options.quotaPolicies, key),
    ]);
    return { key, principal, organization, limits };
  }

  async function load(keyId: string, startedIn: number): Promise<CacheEntry> {
    let entry: CacheEntry;
    try {
      entry = await read(keyId);
    } catch (error) {
      if (!(error instanceof RecordIntegrityError)) throw error;
      entry = { refused: error };
    }
    if (options.cacheTtlMs > 0 && startedIn === generation) cache.set(keyId, entry);
    return entry;
  }

  /** Whether `presented` is the key's secret (or its previous one, within its grace). */
  function matchesSecret(bundle: KeyBundle, presented: string, nowMs: number): boolean {
    const { key, verified } = bundle;
    const presentedBytes = Buffer.from(presented);
    if (
      verified &&
      verified.presented.length === presentedBytes.length &&
      timingSafeEqual(verified.presented, presentedBytes)
    ) {
      return !verified.previous || previousStillValid(key, nowMs);
    }
    const presentedHash = hashApiKey(presented, options.pepper);
    let previous = false;
    if (!digestsEqual(presentedHash, key.secret_hash)) {
      previous = Boolean(
        key.previous_secret_hash &&
        previousStillValid(key, nowMs) &&
        digestsEqual(presentedHash, key.previous_secret_hash),
      );
      if (!previous) return false;
    }
    bundle.verified = { presented: presentedBytes, previous };
    return true;
  }

  /** Who is calling, from a looked-up entry; throws 401 `unauthorized`. */
  function resolveEntry(entry: CacheEntry, presented: string): AuthContext {
    const nowMs = now();
    if ('refused' in entry) {
      // Said before the secret is compared: the stored hash is itself not to be trusted.
      throw new Unauthorized(
        `this key's record failed its integrity check: ${entry.refused.message}`,
        {
          extra: entry.refused.options.extra,
        },
      );
    }
    if ('missing' in entry || !matchesSecret(entry, presented, nowMs)) {
      throw unauthorized('unknown API key');
    }
    const { key, principal, organization, limits } = entry;
    if (key.status !== 'active') throw unauthorized(`API key is ${key.status}`);
    if (key.expires_at && Date.parse(key.expires_at) <= nowMs)
      throw unauthorized('API key has expired');
    if (!principal || principal.status !== 'active')
      throw unauthorized("the key's principal is not active");
    if (!organization || organization.status !== 'active') {
      throw unauthorized("the key's organization is not active");
    }
    return {
      keyId: key._id,
      principalId: principal._id,
      principalName: principal.name,
      organizationId: organization._id,
      role: principal.role,
      entitlement: key.entitlement,
      accessLayer: key.access_layer,
      limits,
    };
  }

  /**
   * Resolves who is calling or throws 401 `unauthorized`: at once (no promise) when the key
   * is cached, which is the hot path; otherwise once it has been read.
   */
  function resolve(header: string | undefined): AuthContext | Promise<AuthContext> {
    if (!header) throw unauthorized('missing X-API-Key header');
    const presented = header.trim();
    let keyId = parseApiKey(presented)?.keyId;
    if (!keyId && adminKeyId && isAdminKey(presented, options.adminApiKey!)) keyId = adminKeyId;
    if (!keyId) throw unauthorized('malformed API key');
    const cached = cache.get(keyId);
    if (cached) return resolveEntry(cached, presented);
    return loadOnce(keyId).then((entry) => resolveEntry(entry, presented));
  }

  return {
    /** Resolves who is calling or throws 401 `unauthorized`. */
    async authenticate(header: string | undefined): Promise<AuthContext> {
      return resolve(header);
    },
    /** `authenticate` without a promise when the key is cached (the request path's). */
    resolve,
    /** Drops everything cached, so a change made here applies at once on this instance. */
    invalidateAll(): void {
      generation += 1;
      loading.clear();
      cache.clear();
    },
  };
}

const previousStillValid = (key: ApiKeyRecord, nowMs: number): boolean =>
  Boolean(key.previous_valid_until && Date.parse(key.previous_valid_until) > nowMs);

function isAdminKey(presented: string, adminApiKey: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(adminApiKey);
  return a.length === b.length && timingSafeEqual(a, b);
}
