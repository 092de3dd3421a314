import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { newOrganization } from '../../store/organizations.repo';
import type {
  CreateOrganizationBody,
  OrganizationListQuery,
  SetOrganizationStatusBody,
} from './schemas';
import { lockoutGuard } from './status-change';
import * as tenant from './tenant-resource';
import { toOrganizationView } from './views';

type Deps = Pick<DomainInfra, 'authenticator' | 'config' | 'repos'>;

/** Suspending or archiving an organization makes every key of its principals answer 401. */
const organizations = tenant.resource(
  'organization',
  'org',
  (repos) => repos.organizations,
  toOrganizationView,
  { affectsKeys: true },
);

/** Creates an active organization; a name already taken (case-insensitive) is 409. */
export async function createOrganization(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: CreateOrganizationBody,
) {
  return tenant.create(
    deps,
    auth,
    requestId,
    organizations,
    newOrganization(body.name, new Date().toISOString()),
    `an organization named "${body.name}" already exists`,
  );
}

/** `GET /v1/admin/organizations`: newest first, optionally in one status. */
export const listOrganizations = (deps: Pick<DomainInfra, 'repos'>, query: OrganizationListQuery) =>
  tenant.list(deps, organizations, query);

export const setOrganizationStatus = tenant.statusSetter(
  organizations,
  (body: SetOrganizationStatusBody) => body.organization_id,
  lockoutGuard('organization'),
);
