import { layerName } from '../../auth/families';
import { displayPrefix } from '../../auth/api-key';
import type { ApiKeyRecord } from '../../store/api-keys.repo';
import type { Principal } from '../../store/principals.repo';

/** A key as the control plane shows it: never the secret or its hash. */
export function keyView(key: ApiKeyRecord) {
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
    last_used_at: key.last_used_at ?? null,
    created_at: key.created_at,
    updated_at: key.updated_at,
  };
}

export function principalView(principal: Principal) {
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
