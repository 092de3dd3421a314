import type { AppDeps } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import { Conflict, InvalidState, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { isDuplicateKey } from '../../store/mongo';
import type { TenantStatus } from '../../store/organizations.repo';
import { decodeIdCursor, idPage } from '../../store/paging';
import type { Project } from '../../store/projects.repo';
import { audit } from './audit';
import { changeStatus } from './status-change';
import { projectView } from './views';

/**
 * Creates an active project in an existing, active organization: an unknown organization
 * is 404, one not active 409 `invalid_state`, a name the organization already uses
 * (case-insensitive) 409 `conflict`.
 */
export async function createProject(
  deps: AppDeps,
  auth: AuthContext,
  requestId: string,
  body: { organization_id: string; name: string },
) {
  const organization = await deps.repos.organizations.findById(body.organization_id);
  if (!organization) throw notFound(`organization ${body.organization_id}`);
  if (organization.status !== 'active') {
    throw new InvalidState(`organization ${organization._id} is ${organization.status}`);
  }
  const now = new Date().toISOString();
  const project: Project = {
    _id: newId('prj'),
    organization_id: organization._id,
    name: body.name,
    name_key: body.name.toLowerCase(),
    status: 'active',
    created_at: now,
    updated_at: now,
  };
  try {
    await deps.repos.projects.insert(project);
  } catch (error) {
    if (isDuplicateKey(error)) {
      throw new Conflict(
        `organization ${organization._id} already has a project named "${body.name}"`,
      );
    }
    throw error;
  }
  const view = projectView(project);
  await audit(deps, auth, requestId, {
    action: 'project.create',
    target: { type: 'project', id: project._id },
    before: null,
    after: view,
  });
  return view;
}

/** `GET /v1/admin/projects`: newest first, optionally of one organization or in one status. */
export async function listProjects(
  deps: Pick<AppDeps, 'repos'>,
  query: { limit?: number; cursor?: string; status?: TenantStatus; organization_id?: string },
) {
  const limit = query.limit ?? 50;
  const before = query.cursor ? decodeIdCursor(query.cursor, 'prj') : undefined;
  const rows = await deps.repos.projects.list(
    { status: query.status, organization_id: query.organization_id },
    limit,
    before,
  );
  const page = idPage(rows, limit);
  return { items: page.items.map(projectView), next_cursor: page.next_cursor };
}

/** Projects hold no keys, so a project's status changes nothing the authenticator sees. */
export function setProjectStatus(
  deps: AppDeps,
  auth: AuthContext,
  requestId: string,
  body: { project_id: string; status: TenantStatus },
) {
  return changeStatus(deps, auth, requestId, {
    action: 'project.status',
    type: 'project',
    id: body.project_id,
    status: body.status,
    find: (id) => deps.repos.projects.findById(id),
    write: (record, now) => deps.repos.projects.setStatus(record._id, body.status, now),
    view: projectView,
    affectsKeys: false,
  });
}
