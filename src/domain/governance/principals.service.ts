import type { AppDeps } from '../../app/deps';
import type { AuthContext, PrincipalRole } from '../../auth/auth-context';
import { Conflict, InvalidState, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { isDuplicateKey } from '../../store/mongo';
import {
  OPERATORS_ORGANIZATION,
  SANDBOX_ORGANIZATION,
  type TenantStatus,
} from '../../store/organizations.repo';
import { decodeIdCursor, idPage } from '../../store/paging';
import type { Principal } from '../../store/principals.repo';
import { audit } from './audit';
import { changeStatus, refuseLockout } from './status-change';
import { principalView } from './views';
import type { CreatePrincipalBody } from './schemas';

/** Creates a principal; without an organization, members join `sandbox`, operators `operators`. */
export async function createPrincipal(
  deps: AppDeps,
  auth: AuthContext,
  requestId: string,
  body: CreatePrincipalBody,
) {
  const now = new Date().toISOString();
  const organization = body.organization_id
    ? await deps.repos.organizations.findById(body.organization_id)
    : await deps.repos.organizations.ensure(
        body.role === 'operator' ? OPERATORS_ORGANIZATION : SANDBOX_ORGANIZATION,
        now,
      );
  if (!organization) throw notFound(`organization ${body.organization_id}`);
  if (organization.status !== 'active') {
    throw new InvalidState(`organization ${organization._id} is ${organization.status}`);
  }
  const principal: Principal = {
    _id: newId('prn'),
    name: body.name,
    email: body.email,
    email_key: body.email.toLowerCase(),
    organization_id: organization._id,
    role: body.role,
    status: 'active',
    created_at: now,
    updated_at: now,
  };
  try {
    await deps.repos.principals.insert(principal);
  } catch (error) {
    if (isDuplicateKey(error))
      throw new Conflict('a principal with this e-mail address already exists');
    throw error;
  }
  const view = principalView(principal);
  await audit(deps, auth, requestId, {
    action: 'principal.create',
    target: { type: 'principal', id: principal._id },
    before: null,
    after: view,
  });
  return view;
}

/** `GET /v1/admin/principals`: newest first, optionally by organization, status or role. */
export async function listPrincipals(
  deps: Pick<AppDeps, 'repos'>,
  query: {
    limit?: number;
    cursor?: string;
    status?: TenantStatus;
    organization_id?: string;
    role?: PrincipalRole;
  },
) {
  const limit = query.limit ?? 50;
  const before = query.cursor ? decodeIdCursor(query.cursor, 'prn') : undefined;
  const rows = await deps.repos.principals.list(
    { status: query.status, organization_id: query.organization_id, role: query.role },
    limit,
    before,
  );
  const page = idPage(rows, limit);
  return { items: page.items.map(principalView), next_cursor: page.next_cursor };
}

/** Suspending or archiving a principal makes every key it holds answer 401. */
export function setPrincipalStatus(
  deps: AppDeps,
  auth: AuthContext,
  requestId: string,
  body: { principal_id: string; status: TenantStatus },
) {
  return changeStatus(deps, auth, requestId, {
    action: 'principal.status',
    type: 'principal',
    id: body.principal_id,
    status: body.status,
    find: (id) => deps.repos.principals.findById(id),
    check: () =>
      refuseLockout(deps, auth, {
        holder: 'principal',
        id: body.principal_id,
        status: body.status,
      }),
    write: (record, now) => deps.repos.principals.setStatus(record._id, body.status, now),
    view: principalView,
    affectsKeys: true,
  });
}
