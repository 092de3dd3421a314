import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { invalidAt, InvalidState } from '../../lib/errors';
import { newOrganization, SANDBOX_ORGANIZATION } from '../../store/organizations.repo';
import type {
  CreateOrganizationBody,
  OrganizationListQuery,
  SetOrganizationStatusBody,
} from './schemas';
import { refuseLockout } from './status-change';
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

/**
 * Organizations whose loss would stop keys nobody here holds: taking one out of service
 * needs `confirm` naming it. `sandbox` is the home of every self-service key (the access
 * request); the operators' own organization is refused outright by the lockout guard.
 */
const PROTECTED_ORGANIZATIONS: readonly string[] = [SANDBOX_ORGANIZATION];

/**
 * `active | suspended | archived`, after the self-lockout guard (the caller's or the
 * bootstrap key's organization: 409) and the protection above: suspending or archiving a
 * protected organization without `confirm: "<its name>"` is 409 `invalid_state` saying how
 * many active keys it would stop. A `confirm` naming another organization is 422.
 */
export function setOrganizationStatus(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: SetOrganizationStatusBody,
) {
  return tenant.statusSetter(
    organizations,
    (request: SetOrganizationStatusBody) => request.organization_id,
    async (guardDeps, guardAuth, change) => {
      await refuseLockout(guardDeps, guardAuth, { holder: 'organization', ...change });
      await refuseUnconfirmed(guardDeps, change, body.confirm);
    },
  )(deps, auth, requestId, body);
}

async function refuseUnconfirmed(
  deps: Deps,
  change: { id: string; status: string },
  confirm: string | undefined,
): Promise<void> {
  const organization = await deps.repos.organizations.findById(change.id);
  if (!organization) return; // the status change answers 404
  if (confirm !== undefined && confirm !== organization.name) {
    throw invalidAt(
      ['body', 'confirm'],
      `confirm must be the name of organization ${organization._id} ("${organization.name}")`,
    );
  }
  if (change.status === 'active' || confirm !== undefined) return;
  if (!PROTECTED_ORGANIZATIONS.includes(organization.name_key)) return;
  const activeKeys = await deps.repos.apiKeys.countActiveIn(organization._id);
  throw new InvalidState(
    `refusing to make organization ${organization._id} ${change.status}: it is the ${organization.name} organization, home of every self-service key, and its ${activeKeys} active keys would answer 401 at once; to do it anyway, send confirm: "${organization.name}"`,
    { extra: { active_keys: activeKeys, confirm: organization.name } },
  );
}
