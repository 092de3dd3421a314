import type { AccessLayerName, Entitlement } from '../../auth/families';
import type { PrincipalRole } from '../../auth/auth-context';
import type { JsonSchema } from '../route';
import { idRef, type PagedQuery } from './schemas';

export const TAGS = ['admin'];

/** Statuses of organizations, projects, principals and policies. */
export const TENANT_STATUSES = ['active', 'suspended', 'archived'] as const;
export type TenantStatusName = (typeof TENANT_STATUSES)[number];
/** Statuses of API keys. */
export const KEY_STATUSES = ['active', 'suspended', 'revoked'] as const;
export type KeyStatusName = (typeof KEY_STATUSES)[number];
/** Principal roles; only `operator` reaches the private control plane. */
export const PRINCIPAL_ROLES = ['member', 'operator'] as const;
/** Pattern of a public key id: 12 lowercase hex characters. */
export const KEY_ID_PATTERN = '^[0-9a-f]{12}$';
/** Rotation grace: how long the previous secret stays valid (default 24 h). */
export const ROTATION_GRACE = { min: 0, max: 604_800, default: 86_400 } as const;
/** Bounds of quota-policy limits. */
export const POLICY_LIMITS = { maxPerMinute: 1_000_000, maxPerDay: 1_000_000_000 } as const;

/** Body of `POST /v1/admin/principals/create`. */
export interface CreatePrincipalRequest {
  name: string;
  email: string;
  organization_id?: string;
  role: PrincipalRole;
}
/** Body of `POST /v1/admin/keys/create`; `access_layer` is the integer or the layer name. */
export interface CreateKeyRequest {
  principal_id: string;
  entitlement: Entitlement;
  access_layer: number | AccessLayerName;
  label?: string;
  expires_at?: string;
}
/** Body of `POST /v1/admin/keys/rotate`. */
export interface RotateKeyRequest {
  key_id: string;
  grace_seconds?: number;
}
/** Body of `POST /v1/admin/keys/status`. */
export interface SetKeyStatusRequest {
  key_id: string;
  status: KeyStatusName;
}
/** Body of `POST /v1/admin/organizations/create`. */
export interface CreateOrganizationRequest {
  name: string;
}
/** Body of `POST /v1/admin/organizations/status`. */
export interface SetOrganizationStatusRequest {
  organization_id: string;
  status: TenantStatusName;
}
/** Body of `POST /v1/admin/projects/create`. */
export interface CreateProjectRequest {
  organization_id: string;
  name: string;
}
/** Body of `POST /v1/admin/projects/status`. */
export interface SetProjectStatusRequest {
  project_id: string;
  status: TenantStatusName;
}
/** Body of `POST /v1/admin/principals/status`. */
export interface SetPrincipalStatusRequest {
  principal_id: string;
  status: TenantStatusName;
}
/** Body of `POST /v1/admin/policies/create`; `scope` names exactly one target. */
export interface CreatePolicyRequest {
  name: string;
  scope: { key_id?: string; organization_id?: string; entitlement?: Entitlement };
  requests_per_minute: number;
  daily_quota: number;
}
/** Body of `POST /v1/admin/policies/status`. */
export interface SetPolicyStatusRequest {
  policy_id: string;
  status: TenantStatusName;
}
/** Body of `POST /v1/admin/prune-ledgers`. */
export interface PruneLedgersRequest {
  older_than: string;
  dry_run?: boolean;
}

/** Query of `GET /v1/admin/keys`. */
export type KeyListQuery = PagedQuery & {
  status?: KeyStatusName;
  organization_id?: string;
  principal_id?: string;
  entitlement?: Entitlement;
};
/** Query of `GET /v1/admin/principals`. */
export type PrincipalListQuery = PagedQuery & {
  status?: TenantStatusName;
  organization_id?: string;
  role?: PrincipalRole;
};
/** Query of `GET /v1/admin/organizations`. */
export type OrganizationListQuery = PagedQuery & { status?: TenantStatusName };
/** Query of `GET /v1/admin/projects`. */
export type ProjectListQuery = PagedQuery & { status?: TenantStatusName; organization_id?: string };
/** Query of `GET /v1/admin/policies`. */
export type PolicyListQuery = PagedQuery & {
  status?: TenantStatusName;
  key_id?: string;
  organization_id?: string;
  entitlement?: Entitlement;
};
/** Query of `GET /v1/admin/audit`. */
export type AuditQuery = PagedQuery & {
  key_id?: string;
  principal_id?: string;
  action?: string;
  target_id?: string;
  since?: string;
  until?: string;
};
/** Query of `GET /v1/admin/requests`. */
export type RequestLedgerQuery = PagedQuery & {
  key_id?: string;
  status?: number;
  route?: string;
  since?: string;
  until?: string;
};
/** Query of `GET /v1/admin/service-events`. */
export type ServiceEventQuery = PagedQuery & {
  kind?: string;
  level?: string;
  since?: string;
  until?: string;
};
/** Query of `GET /v1/admin/usage`. */
export type UsageQuery = PagedQuery & {
  key_id?: string;
  organization_id?: string;
  granularity?: 'hour' | 'day';
  since?: string;
  until?: string;
};
/** Query of `GET /v1/admin/usage/{key_id}`. */
export type KeyUsageQuery = { granularity?: 'hour' | 'day'; since?: string; until?: string };

export const keyId = (description: string): JsonSchema => ({
  type: 'string',
  pattern: KEY_ID_PATTERN,
  description,
});
export const organizationId = (description: string) => idRef('org', description);
export const principalId = (description: string) => idRef('prn', description);
