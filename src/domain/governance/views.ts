import { layerName } from '../../auth/families';
import { displayPrefix } from '../../auth/api-key';
import type { ApiKeyRecord } from '../../store/api-keys.repo';
import type { Organization } from '../../store/organizations.repo';
import type { Principal } from '../../store/principals.repo';
import type { Project } from '../../store/projects.repo';

/** A key as the control plane shows it: never the secret or its hash. */
export function toKeyView(key: ApiKeyRecord, lastUsedAt: string | null = null) {
  return {
    key_id: key._id,
    display_prefix: displayPrefix(key._id),
    principal_id: key.principal_id,
    organization_id: key.organization_id,
    entitlement: key.entitlement,
    access_layer: layerName(key.access_layer),
    label: key.label ?? null,
    status: key.status,
    expires_at: key.expires_at ?? null,
    last_used_at: lastUsedAt,
    rotations: key.rotations ?? 0,
    previous_valid_until: key.previous_valid_until ?? null,
    bootstrap: key.bootstrap ?? false,
    created_at: key.created_at,
    updated_at: key.updated_at,
  };
}

export function toPrincipalView(principal: Principal) {
  return {
    principal_id: principal._id,
    name: principal.name,
    email: principal.email,
    organization_id: principal.organization_id,
    role: principal.role,
    status: principal.status,
    created_at: principal.created_at,
    updated_at: principal.updated_at,
  };
}

export function toOrganizationView(organization: Organization) {
  return {
    organization_id: organization._id,
    name: organization.name,
    status: organization.status,
    created_at: organization.created_at,
    updated_at: organization.updated_at,
  };
}

export function toProjectView(project: Project) {
  return {
    project_id: project._id,
    organization_id: project.organization_id,
    name: project.name,
    status: project.status,
    created_at: project.created_at,
    updated_at: project.updated_at,
  };
}
