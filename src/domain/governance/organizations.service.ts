import type { AppInfra } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import { pageById } from '../../store/paging';
import type {
  CreateOrganizationBody,
  OrganizationListQuery,
  SetOrganizationStatusBody,
} from './schemas';
import { auditCreated, insertUnique } from './audit';
import { changeStatus, refuseLockout } from './status-change';
import { organizationView } from './views';

type Deps = Pick<AppInfra, 'authenticator' | 'config' | 'repos'>;

/** Creates an active organization; a name already taken (case-insensitive) is 409. */
export async function createOrganization(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: CreateOrganizationBody,
) {
  const organization = await insertUnique(
    () => deps.repos.organizations.insert(body.name, new Date().toISOString()),
    `an organization named "${body.name}" already exists`,
  );
  return auditCreated(deps, auth, requestId, {
    action: 'organization.create',
    type: 'organization',
    id: organization._id,
    view: organizationView(organization),
  });
}

/** `GET /v1/admin/organizations`: newest first, optionally in one status. */
export const listOrganizations = (deps: Pick<AppInfra, 'repos'>, query: OrganizationListQuery) =>
  pageById(
    query,
    'org',
    (limit, before) => deps.repos.organizations.list({ status: query.status }, limit, before),
    organizationView,
  );

/** Suspending or archiving an organization makes every key of its principals answer 401. */
export function setOrganizationStatus(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: SetOrganizationStatusBody,
) {
  return changeStatus(deps, auth, requestId, {
    action: 'organization.status',
    type: 'organization',
    id: body.organization_id,
    status: body.status,
    find: (id) => deps.repos.organizations.findById(id),
    check: () =>
      refuseLockout(deps, auth, {
        holder: 'organization',
        id: body.organization_id,
        status: body.status,
      }),
    write: (record, now) => deps.repos.organizations.setStatus(record._id, body.status, now),
    view: organizationView,
    affectsKeys: true,
  });
}
