import type { AppInfra } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import { newId } from '../../lib/ids';
import { OPERATORS_ORGANIZATION, SANDBOX_ORGANIZATION } from '../../store/organizations.repo';
import { pageById } from '../../store/paging';
import type { Principal } from '../../store/principals.repo';
import { activeOrganization, auditCreated, createdActive, insertUnique } from './audit';
import { changeStatus, refuseLockout } from './status-change';
import { principalView } from './views';
import type { CreatePrincipalBody, PrincipalListQuery, SetPrincipalStatusBody } from './schemas';

type Deps = Pick<AppInfra, 'authenticator' | 'config' | 'repos'>;

/** Creates a principal; without an organization, members join `sandbox`, operators `operators`. */
export async function createPrincipal(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: CreatePrincipalBody,
) {
  const now = new Date().toISOString();
  const organization = await activeOrganization(
    deps,
    body.organization_id ??
      (
        await deps.repos.organizations.ensure(
          body.role === 'operator' ? OPERATORS_ORGANIZATION : SANDBOX_ORGANIZATION,
          now,
        )
      )._id,
  );
  const principal: Principal = {
    _id: newId('prn'),
    name: body.name,
    email: body.email,
    email_key: body.email.toLowerCase(),
    organization_id: organization._id,
    role: body.role,
    ...createdActive(now),
  };
  await insertUnique(
    () => deps.repos.principals.insert(principal),
    'a principal with this e-mail address already exists',
  );
  return auditCreated(deps, auth, requestId, {
    action: 'principal.create',
    type: 'principal',
    id: principal._id,
    view: principalView(principal),
  });
}

/** `GET /v1/admin/principals`: newest first, optionally by organization, status or role. */
export const listPrincipals = (deps: Pick<AppInfra, 'repos'>, query: PrincipalListQuery) =>
  pageById(
    query,
    'prn',
    (limit, before) =>
      deps.repos.principals.list(
        { status: query.status, organization_id: query.organization_id, role: query.role },
        limit,
        before,
      ),
    principalView,
  );

/** Suspending or archiving a principal makes every key it holds answer 401. */
export function setPrincipalStatus(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: SetPrincipalStatusBody,
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
