import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { Conflict, found, InvalidState } from '../../lib/errors';
import { isDuplicateKey } from '../../store/mongo';

export interface AuditChange {
  action: string;
  target: { type: string; id: string };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** Records a control-plane change made by `auth` (views only: never a secret or hash). */
export async function audit(
  deps: Pick<DomainInfra, 'repos'>,
  auth: AuthContext,
  requestId: string,
  change: AuditChange,
) {
  await deps.repos.audit.record({
    at: new Date().toISOString(),
    actor: { key_id: auth.keyId, principal_id: auth.principalId },
    request_id: requestId,
    ...change,
  });
}

/** Audits a new record (`<noun>.create`, nothing before) and answers its view. */
export async function auditCreated<V extends Record<string, unknown>>(
  deps: Pick<DomainInfra, 'repos'>,
  auth: AuthContext,
  requestId: string,
  created: { action: string; type: string; id: string; view: V },
): Promise<V> {
  const { action, type, id, view } = created;
  await audit(deps, auth, requestId, { action, target: { type, id }, before: null, after: view });
  return view;
}

/** Runs an insert under a unique name; a name already taken is 409 `conflict` saying `taken`. */
export async function insertUnique<T>(insert: () => Promise<T>, taken: string): Promise<T> {
  try {
    return await insert();
  } catch (error) {
    if (isDuplicateKey(error)) throw new Conflict(taken);
    throw error;
  }
}

/** The organization a new record goes into: 404 when unknown, 409 when not active. */
export async function activeOrganization(deps: Pick<DomainInfra, 'repos'>, organizationId: string) {
  const organization = await found(
    deps.repos.organizations.findById(organizationId),
    `organization ${organizationId}`,
  );
  if (organization.status !== 'active') {
    throw new InvalidState(`organization ${organization._id} is ${organization.status}`);
  }
  return organization;
}

/** The status and timestamps of a record created now. */
export const createdActive = (now: string) =>
  ({ status: 'active', created_at: now, updated_at: now }) as const;
