import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { bootstrapKeyId } from '../../auth/authenticator';
import { Conflict, InvalidState, notFound } from '../../lib/errors';
import { audit } from './audit';

type Deps = Pick<DomainInfra, 'authenticator' | 'config' | 'repos'>;

/** A record whose status the control plane changes. */
interface StatusRecord<S extends string> {
  _id: string;
  status: S;
  updated_at: string;
}

/** How to change the status of one kind of record. */
export interface StatusChangeSpec<S extends string, R extends StatusRecord<S>> {
  /** Audit action, `<thing>.status`; `<thing>` also names the record in a 404. */
  action: string;
  /** Audit target type (`organization`, `api_key`, ...). */
  type: string;
  id: string;
  status: S;
  find: (id: string) => Promise<R | null>;
  /** Refuses the change (throws a 409) after the record is found. */
  check?: (record: R) => Promise<void> | void;
  write: (record: R, now: string) => Promise<void>;
  /** Other fields the write changes besides status and `updated_at` (a version, say). */
  changes?: (record: R) => Partial<R>;
  view: (record: R) => Record<string, unknown>;
  /** Whether the change can alter what a key may do (drops this instance's key cache). */
  affectsKeys: boolean;
}

/**
 * Changes the status of one record: 404 when unknown, a no-op (no write, no audit row) when
 * it already has that status, 409 when another change based on the same read won the race,
 * otherwise one write, one audit row with the views before and
 * after, and, when keys depend on it, this instance's key cache dropped so the change
 * applies here at once (other api instances within `KEY_CACHE_TTL_MS`).
 */
export async function changeStatus<S extends string, R extends StatusRecord<S>>(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  spec: StatusChangeSpec<S, R>,
) {
  const record = await spec.find(spec.id);
  if (!record) throw notFound(`${spec.action.split('.')[0]} ${spec.id}`);
  const previous = record.status;
  if (previous === spec.status) return { item: spec.view(record), previous_status: previous };
  await spec.check?.(record);
  const now = new Date().toISOString();
  // Of two changes based on the same read, one goes ahead; the other would report a
  // `before` that is no longer true, so it is refused instead.
  if (!(await deps.repos.statusClaims.claim(spec.type, record._id, record.updated_at, now))) {
    throw new Conflict(
      `${spec.type} ${record._id} changed while this change was being made; read it and retry`,
    );
  }
  await spec.write(record, now);
  if (spec.affectsKeys) deps.authenticator.invalidateAll();
  const after = { ...record, ...spec.changes?.(record), status: spec.status, updated_at: now };
  const view = spec.view(after);
  await audit(deps, auth, requestId, {
    action: spec.action,
    target: { type: spec.type, id: record._id },
    before: spec.view(record),
    after: view,
  });
  return { item: view, previous_status: previous };
}

type Holder = 'organization' | 'principal' | 'key';

/**
 * The self-lockout guard: refuses to take out of service (409 `invalid_state`) the key
 * making the request, its principal or its organization, and the principal or organization
 * of the bootstrap operator key (ADMIN_API_KEY, the break-glass path a restart restores).
 * The bootstrap key itself may be suspended or revoked by another operator (a leak); a
 * restart re-activates it.
 */
export async function refuseLockout(
  deps: Deps,
  auth: AuthContext,
  target: { holder: Holder; id: string; status: string },
): Promise<void> {
  if (target.status === 'active') return;
  const own =
    target.holder === 'key'
      ? auth.keyId
      : target.holder === 'principal'
        ? auth.principalId
        : auth.organizationId;
  const what = target.holder === 'key' ? 'the key' : `the ${target.holder} of the key`;
  if (target.id === own) {
    throw new InvalidState(
      `refusing to make ${target.holder} ${target.id} ${target.status}: it is ${what} making this request, which would lock this operator out; use another operator's key`,
    );
  }
  if (target.holder === 'key' || !deps.config.adminApiKey) return;
  const bootstrap = await deps.repos.apiKeys.findById(bootstrapKeyId(deps.config.adminApiKey));
  const held = target.holder === 'principal' ? bootstrap?.principal_id : bootstrap?.organization_id;
  if (held === target.id) {
    throw new InvalidState(
      `refusing to make ${target.holder} ${target.id} ${target.status}: it holds the bootstrap operator key (ADMIN_API_KEY), the break-glass path; suspend or revoke that key instead, or retire ADMIN_API_KEY`,
    );
  }
}

/** The self-lockout guard of one kind of holder, as a status change's check. */
export const lockoutGuard =
  (holder: Holder) => (deps: Deps, auth: AuthContext, change: { id: string; status: string }) =>
    refuseLockout(deps, auth, { holder, ...change });
