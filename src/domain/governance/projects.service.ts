import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { newId } from '../../lib/ids';
import type { CreateProjectBody, ProjectListQuery, SetProjectStatusBody } from './schemas';
import type { Project } from '../../store/projects.repo';
import { activeOrganization, createdActive } from './audit';
import * as tenant from './tenant-resource';
import { toProjectView } from './views';

type Deps = Pick<DomainInfra, 'authenticator' | 'config' | 'repos'>;

/** Projects hold no keys, so a project's status changes nothing the authenticator sees. */
const projects = tenant.resource('project', 'prj', (repos) => repos.projects, toProjectView);

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
  const project: Project = {
    _id: newId('prj'),
    organization_id: organization._id,
    name: body.name,
    name_key: body.name.toLowerCase(),
    ...createdActive(new Date().toISOString()),
  };
  return tenant.create(
    deps,
    auth,
    requestId,
    projects,
    project,
    `organization ${organization._id} already has a project named "${body.name}"`,
  );
}

/** `GET /v1/admin/projects`: newest first, optionally of one organization or in one status. */
export const listProjects = (deps: Pick<DomainInfra, 'repos'>, query: ProjectListQuery) =>
  tenant.list(deps, projects, query);

export const setProjectStatus = tenant.statusSetter(
  projects,
  (body: SetProjectStatusBody) => body.project_id,
);
