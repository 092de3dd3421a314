import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { newId } from '../../lib/ids';
import { OPERATORS_ORGANIZATION, SANDBOX_ORGANIZATION } from '../../store/organizations.repo';
import type { Principal } from '../../store/principals.repo';
import { activeOrganization, createdActive } from './audit';
import { lockoutGuard } from './status-change';
import * as tenant from './tenant-resource';
import { toPrincipalView } from './views';
import type { CreatePrincipalBody, PrincipalListQuery, SetPrincipalStatusBody } from './schemas';

type Deps = Pick<DomainInfra, 'authenticator' | 'config' | 'repos'>;

/** Suspending or archiving a principal makes every key it holds answer 401. */
const principals = tenant.resource(
  'principal',
  'prn',
  (repos) => repos.principals,
  toPrincipalView,
  {
    affectsKeys: true,
  },
);

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
  return tenant.create(
    deps,
    auth,
    requestId,
    principals,
    principal,
    'a principal with this e-mail address already exists',
  );
}

/** `GET /v1/admin/principals`: newest first, optionally by organization, status or role. */
export const listPrincipals = (deps: Pick<DomainInfra, 'repos'>, query: PrincipalListQuery) =>
  tenant.list(deps, principals, query);

export const setPrincipalStatus = tenant.statusSetter(
  principals,
  (body: SetPrincipalStatusBody) => body.principal_id,
  lockoutGuard('principal'),
);
