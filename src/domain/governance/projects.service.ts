import type { AppInfra } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import { newId } from '../../lib/ids';
import { pageById } from '../../store/paging';
import type { CreateProjectBody, ProjectListQuery, SetProjectStatusBody } from './schemas';
import type { Project } from '../../store/projects.repo';
import { activeOrganization, auditCreated, createdActive, insertUnique } from './audit';
import { changeStatus } from './status-change';
import { projectView } from './views';

type Deps = Pick<AppInfra, 'authenticator' | 'config' | 'repos'>;

/**
 * Creates an active project in an existing, active organization: an unknown organization
 * is 404, one not active 409 `invalid_state`, a name the organization already uses
 * (case-insensitive) 409 `conflict`.
 */
export async function createProject(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: CreateProjectBody,
) {
  const organization = await activeOrganization(deps, body.organization_id);
  const now = new Date().toISOString();
  const project: Project = {
    _id: newId('prj'),
    organization_id: organization._id,
    name: body.name,
    name_key: body.name.toLowerCase(),
    ...createdActive(now),
  };
  await insertUnique(
    () => deps.repos.projects.insert(project),
    `organization ${organization._id} already has a project named "${body.name}"`,
  );
  return auditCreated(deps, auth, requestId, {
    action: 'project.create',
    type: 'project',
    id: project._id,
    view: projectView(project),
  });
}

/** `GET /v1/admin/projects`: newest first, optionally of one organization or in one status. */
export const listProjects = (deps: Pick<AppInfra, 'repos'>, query: ProjectListQuery) =>
  pageById(
    query,
    'prj',
    (limit, before) =>
      deps.repos.projects.list(
        { status: query.status, organization_id: query.organization_id },
        limit,
        before,
      ),
    projectView,
  );

/** Projects hold no keys, so a project's status changes nothing the authenticator sees. */
export function setProjectStatus(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: SetProjectStatusBody,
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
