import type { AppDeps } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import { Conflict } from '../../lib/errors';
import { isDuplicateKey } from '../../store/mongo';
import type { TenantStatus } from '../../store/organizations.repo';
import { decodeIdCursor, idPage } from '../../store/paging';
import { audit } from './audit';
import { changeStatus, refuseLockout } from './status-change';
import { organizationView } from './views';

/** Creates an active organization; a name already taken (case-insensitive) is 409. */
export async function createOrganization(
  deps: AppDeps,
  auth: AuthContext,
  requestId: string,
  body: { name: string },
) {
  let organization;
  try {
    organization = await deps.repos.organizations.insert(body.name, new Date().toISOString());
  } catch (error) {
    if (isDuplicateKey(error)) {
      throw new Conflict(`an organization named "${body.name}" already exists`);
    }
    throw error;
  }
  const view = organizationView(organization);
  await audit(deps, auth, requestId, {
    action: 'organization.create',
    target: { type: 'organization', id: organization._id },
    before: null,
    after: view,
  });
  return view;
}

/** `GET /v1/admin/organizations`: newest first, optionally in one status. */
export async function listOrganizations(
  deps: Pick<AppDeps, 'repos'>,
  query: { limit?: number; cursor?: string; status?: TenantStatus },
) {
  const limit = query.limit ?? 50;
  const before = query.cursor ? decodeIdCursor(query.cursor, 'org') : undefined;
  const rows = await deps.repos.organizations.list({ status: query.status }, limit, before);
  const page = idPage(rows, limit);
  return { items: page.items.map(organizationView), next_cursor: page.next_cursor };
}

/** Suspending or archiving an organization makes every key of its principals answer 401. */
export function setOrganizationStatus(
  deps: AppDeps,
  auth: AuthContext,
  requestId: string,
  body: { organization_id: string; status: TenantStatus },
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
