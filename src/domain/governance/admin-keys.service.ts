import type { DomainInfra } from '../infra';
import { hashApiKey, mintApiKey } from '../../auth/api-key';
import type { AuthContext } from '../../auth/auth-context';
import { parseAccessLayer } from '../../auth/families';
import { AppError, Conflict, found, Invalid, InvalidState } from '../../lib/errors';
import type { ApiKeyRecord, KeyFilter, RotationUpdate } from '../../store/api-keys.repo';
import { decodePageCursor, encodePageCursor } from '../../store/paging';
import { audit } from './audit';
import { classLimitsView, issueKey } from './keys.service';
import { changeStatus, refuseLockout } from './status-change';
import { toKeyView } from './views';
import type { CreateKeyBody, SetKeyStatusBody } from './schemas';

type Deps = Pick<DomainInfra, 'authenticator' | 'config' | 'repos'>;

/** Default rotation grace: the previous secret works for 24 h more. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 86_400;
/**
 * A rotation claim older than this whose rotation never reached the key is abandoned (its
 * api instance died between the claim and the write); the next rotation skips its number.
 */
export const STALE_ROTATION_CLAIM_MS = 60_000;

/** Mints a key for an existing, active principal; the secret is in this answer only. */
export async function createKey(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: CreateKeyBody,
) {
  const accessLayer = parseAccessLayer(body.access_layer);
  if (accessLayer === undefined) {
    throw new Invalid([
      { loc: ['body', 'access_layer'], msg: 'Input should be 0..3 or a layer name', type: 'enum' },
    ]);
  }
  if (body.expires_at && Date.parse(body.expires_at) <= Date.now()) {
    throw new Invalid([
      {
        loc: ['body', 'expires_at'],
        msg: 'Input should be in the future',
        type: 'datetime_future',
      },
    ]);
  }
  const principal = await found(
    deps.repos.principals.findById(body.principal_id),
    `principal ${body.principal_id}`,
  );
  if (principal.status !== 'active') {
    throw new InvalidState(`principal ${principal._id} is ${principal.status}`);
  }
  const issued = await issueKey(deps, {
    principal,
    entitlement: body.entitlement,
    accessLayer,
    label: body.label,
    expiresAt: body.expires_at ? new Date(body.expires_at).toISOString() : undefined,
  });
  const view = toKeyView(issued.record);
  await audit(deps, auth, requestId, {
    action: 'key.create',
    target: { type: 'api_key', id: issued.record._id },
    before: null,
    after: view,
  });
  return { ...view, api_key: issued.apiKey, limits: classLimitsView(body.entitlement) };
}

/**
 * `GET /v1/admin/keys`: newest first by (`created_at`, `key_id`) (key ids are random, not
 * time-ordered), optionally by status, organization, principal or class. Never a secret.
 */
export async function listKeys(
  deps: Pick<DomainInfra, 'repos'>,
  query: KeyFilter & { limit?: number; cursor?: string },
) {
  const limit = query.limit ?? 50;
  const after = query.cursor ? decodePageCursor(query.cursor) : undefined;
  const { limit: _limit, cursor: _cursor, ...filter } = query;
  const rows = await deps.repos.apiKeys.list(filter, limit, after);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const lastUsed = await deps.repos.apiKeys.lastUsed(items.map((key) => key._id));
  return {
    items: items.map((key) => toKeyView(key, lastUsed.get(key._id) ?? null)),
    next_cursor:
      rows.length > limit && last ? encodePageCursor({ at: last.created_at, id: last._id }) : null,
  };
}

/**
 * `active | suspended | revoked`; `revoked` is final (409 `invalid_state` afterwards, except
 * for the bootstrap key, which a restart re-seeds from ADMIN_API_KEY). The calling key
 * cannot take itself out of service.
 */
export function setKeyStatus(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: SetKeyStatusBody,
) {
  return changeStatus(deps, auth, requestId, {
    action: 'key.status',
    type: 'api_key',
    id: body.key_id,
    status: body.status,
    find: (id) => deps.repos.apiKeys.findById(id),
    check: async (key) => {
      if (key.status === 'revoked') {
        throw new InvalidState(`key ${key._id} is revoked; revocation is final`);
      }
      await refuseLockout(deps, auth, { holder: 'key', id: key._id, status: body.status });
    },
    write: async (key, now) => {
      if (body.status === 'revoked' && !key.bootstrap) {
        await deps.repos.apiKeys.markRevoked(key._id, now);
      }
      await deps.repos.apiKeys.setStatus(key._id, body.status, now);
    },
    view: toKeyView,
    affectsKeys: true,
  });
}

const rotationConflict = (keyId: string): AppError =>
  new Conflict(`another rotation of key ${keyId} won the race; read the key and retry`);

/**
 * Claims the next rotation number of a key by a unique insert (FerretDB's conditional
 * updates are no compare-and-set): of concurrent rotations exactly one wins, the others 409.
 */
async function claimNextRotation(deps: Pick<DomainInfra, 'repos'>, key: ApiKeyRecord) {
  let n = (key.rotations ?? 0) + 1;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (await deps.repos.apiKeys.claimRotation(key._id, n, new Date().toISOString())) return n;
    const claim = await deps.repos.apiKeys.findRotationClaim(key._id, n);
    if (!claim || Date.now() - Date.parse(claim.at) < STALE_ROTATION_CLAIM_MS) break;
    n += 1; // abandoned claim: skip its number
  }
  throw rotationConflict(key._id);
}

/**
 * Issues a new secret for a key; the current one stays valid for `grace_seconds` (0 ends it
 * now). A secret from before the previous rotation stops at once. The new secret is in this
 * answer only; the audit row carries the views, never a secret or hash.
 */
export async function rotateKey(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: { key_id: string; grace_seconds?: number },
) {
  const key = await found(deps.repos.apiKeys.findById(body.key_id), `key ${body.key_id}`);
  if (key.status === 'revoked') {
    throw new InvalidState(`key ${key._id} is revoked; a revoked key cannot be rotated`);
  }
  if (key.bootstrap) {
    throw new InvalidState(
      `key ${key._id} is the bootstrap operator key: it is ADMIN_API_KEY, so change the configuration to rotate it`,
    );
  }
  const rotation = await claimNextRotation(deps, key);
  const graceSeconds = body.grace_seconds ?? DEFAULT_ROTATION_GRACE_SECONDS;
  const apiKey = mintApiKey(key._id);
  const now = Date.now();
  const update: RotationUpdate = {
    secret_hash: hashApiKey(apiKey, deps.config.keyPepper),
    previous_secret_hash: key.secret_hash,
    previous_valid_until: new Date(now + graceSeconds * 1000).toISOString(),
    rotations: rotation,
    updated_at: new Date(now).toISOString(),
  };
  if (!(await deps.repos.apiKeys.applyRotation(key._id, update))) throw rotationConflict(key._id);
  deps.authenticator.invalidateAll();
  const view = toKeyView({ ...key, ...update });
  await audit(deps, auth, requestId, {
    action: 'key.rotate',
    target: { type: 'api_key', id: key._id },
    before: toKeyView(key),
    after: { ...view, grace_seconds: graceSeconds },
  });
  return { ...view, api_key: apiKey };
}
