/**
 * The control plane's vocabulary and the schemas of its inputs (docs/governance.md):
 * organizations, projects, principals, keys and quota policies. Request types are derived
 * from the schemas, never written twice.
 */
import { Type, type Static, type TString, type TUnsafe } from '@sinclair/typebox';
import { ACCESS_LAYER_NAMES, ENTITLEMENTS } from '../../auth/families';
import {
  choice,
  closedObject,
  dateTime,
  idRef,
  integer,
  pagedQuery,
  text,
  when,
  withRules,
} from '../../lib/schema';
import { idCursor, timeCursor } from '../../lib/cursor';

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
export const POLICY_LIMITS = {
  maxPerMinute: 1_000_000,
  maxPerDay: 1_000_000_000,
  maxConcurrentDeployments: 10_000,
  maxCellUpdatesPerDay: 1_000_000_000_000_000,
} as const;

export const keyId = (description: string) =>
  Type.String({ pattern: KEY_ID_PATTERN, maxLength: 12, description });
export const organizationId = (description: string) => idRef('org', description);
export const principalId = (description: string) => idRef('prn', description);
export const entitlement = (description: string) => choice(ENTITLEMENTS, description);
export const tenantStatus = (description: string) => choice(TENANT_STATUSES, description);
const name = (description: string) => text(description, 128);
const email = (description: string) =>
  Type.String({ format: 'email', maxLength: 254, description });

/** An access layer given as its number or its name. */
export const accessLayerInput = Type.Union(
  [Type.Integer({ minimum: 0, maximum: 3 }), choice(ACCESS_LAYER_NAMES, 'Layer name.')],
  { description: 'Access layer: 0..3 or its name (`layer0_public` ... `layer3_partner`).' },
);

/** Body of `POST /v1/access/request`. */
export const sandboxAccessBody = closedObject(
  {
    name: text('Who the key is for.', 200),
    email: email('Contact e-mail; one grant per address.'),
    intended_use: text('What the key will be used for.', 2000),
  },
  ['name', 'email', 'intended_use'],
);
export type SandboxAccessRequest = Static<typeof sandboxAccessBody>;

/** Body of `POST /v1/admin/keys/create`. */
export const createKeyBody = closedObject(
  {
    principal_id: principalId('Principal the key belongs to.'),
    entitlement: entitlement('Entitlement class.'),
    access_layer: accessLayerInput,
    label: text('Label to recognise the key by.', 128),
    expires_at: dateTime('When the key stops working (default: never).'),
  },
  ['principal_id', 'entitlement', 'access_layer'],
);
export type CreateKeyBody = Static<typeof createKeyBody>;

/** Body of `POST /v1/admin/keys/rotate`. */
export const rotateKeyBody = closedObject(
  {
    key_id: keyId('Key to rotate.'),
    grace_seconds: integer(
      'Seconds the previous secret stays valid (0 ends it now).',
      ROTATION_GRACE.min,
      ROTATION_GRACE.max,
      ROTATION_GRACE.default,
    ),
  },
  ['key_id'],
);
export type RotateKeyBody = Static<typeof rotateKeyBody>;

/** Body of `POST /v1/admin/organizations/create`. */
export const createOrganizationBody = closedObject({ name: name('Organization name.') }, ['name']);
export type CreateOrganizationBody = Static<typeof createOrganizationBody>;

/** Body of `POST /v1/admin/projects/create`. */
export const createProjectBody = closedObject(
  {
    organization_id: organizationId('Organization the project belongs to.'),
    name: name('Project name.'),
  },
  ['organization_id', 'name'],
);
export type CreateProjectBody = Static<typeof createProjectBody>;

/** Body of `POST /v1/admin/principals/create`. */
export const createPrincipalBody = closedObject(
  {
    name: text('Name.', 256),
    email: email('E-mail address (unique).'),
    organization_id: organizationId('Organization (default: the `sandbox` organization).'),
    role: choice(
      PRINCIPAL_ROLES,
      '`operator` reaches the private control plane; `member` does not.',
    ),
  },
  ['name', 'email', 'role'],
);
export type CreatePrincipalBody = Static<typeof createPrincipalBody>;

const policyScope = closedObject(
  {
    key_id: keyId('Scope the policy to this key.'),
    organization_id: organizationId('Scope the policy to this organization.'),
    entitlement: entitlement('Scope the policy to this entitlement class.'),
  },
  [],
  'What the policy applies to: exactly one of `key_id`, `organization_id`, `entitlement`.',
);

const concurrentDeployments = (description: string) =>
  integer(description, 0, POLICY_LIMITS.maxConcurrentDeployments);
const cellUpdates = (description: string) =>
  integer(description, 0, POLICY_LIMITS.maxCellUpdatesPerDay);

/** Optional limits on heavy work (docs/governance.md); 0 forbids deployments. */
const heavyWorkFields = {
  concurrent_deployments: concurrentDeployments(
    'Deployments per key not yet in a final stage (default by class).',
  ),
  cell_updates_per_day: cellUpdates(
    'Cell updates (cells × ticks) per key and UTC day, charged at deploy (default by class).',
  ),
  organization_concurrent_deployments: concurrentDeployments(
    "The organization's running deployments, all keys together; organization scope only.",
  ),
  organization_cell_updates_per_day: cellUpdates(
    "The organization's cell updates per UTC day, all keys together; organization scope only.",
  ),
};

/** The organization-wide limits: only a policy scoped to an organization sets them. */
const ORGANIZATION_ONLY = [
  'organization_concurrent_deployments',
  'organization_cell_updates_per_day',
] as const;

/**
 * Body of `POST /v1/admin/policies/create`; `scope` names exactly one target, and only an
 * organization's policy sets the organization-wide limits.
 */
export const createPolicyBody = withRules(
  closedObject(
    {
      name: name('Policy name.'),
      scope: { ...policyScope, minProperties: 1, maxProperties: 1 },
      requests_per_minute: integer('Requests per minute.', 1, POLICY_LIMITS.maxPerMinute),
      daily_quota: integer('Requests per UTC day.', 1, POLICY_LIMITS.maxPerDay),
      ...heavyWorkFields,
    },
    ['name', 'scope', 'requests_per_minute', 'daily_quota'],
  ),
  ORGANIZATION_ONLY.map((field) =>
    when(
      { properties: { scope: { not: { required: ['organization_id'] } } }, required: [field] },
      { properties: { [field]: false } },
      'only an organization-scoped policy sets this',
    ),
  ),
);
export type CreatePolicyBody = Static<typeof createPolicyBody>;

/** Body of a status route (`keys/status`, ...): the record's id field and the new status. */
export const statusBody = <F extends string, const S extends readonly string[]>(
  idField: F,
  id: TString,
  statuses: S,
) =>
  Type.Object(
    { [idField]: id, status: choice(statuses, 'New status.') } as { [K in F]: TString } & {
      status: TUnsafe<S[number]>;
    },
    { additionalProperties: false },
  );

/** Body of a tenant record's status route: the record's id and one of `TENANT_STATUSES`. */
export const tenantStatusBody = <F extends string>(idField: F, id: TString) =>
  statusBody(idField, id, TENANT_STATUSES);

export const setKeyStatusBody = statusBody('key_id', keyId('Key to change.'), KEY_STATUSES);
export type SetKeyStatusBody = Static<typeof setKeyStatusBody>;
export const setOrganizationStatusBody = Type.Object(
  {
    ...tenantStatusBody('organization_id', organizationId('Organization to change.')).properties,
    confirm: Type.Optional(
      text(
        "The organization's name. Required to suspend or archive a protected organization (`sandbox`, home of every self-service key); when given, it must name the organization changed.",
        128,
      ),
    ),
  },
  { additionalProperties: false },
);
export type SetOrganizationStatusBody = Static<typeof setOrganizationStatusBody>;
export const setProjectStatusBody = tenantStatusBody(
  'project_id',
  idRef('prj', 'Project to change.'),
);
export type SetProjectStatusBody = Static<typeof setProjectStatusBody>;
export const setPrincipalStatusBody = tenantStatusBody(
  'principal_id',
  principalId('Principal to change.'),
);
export type SetPrincipalStatusBody = Static<typeof setPrincipalStatusBody>;
export const setPolicyStatusBody = tenantStatusBody('policy_id', idRef('pol', 'Policy to change.'));
export type SetPolicyStatusBody = Static<typeof setPolicyStatusBody>;

/** Query of `GET /v1/admin/keys`. */
export const keyListQuery = pagedQuery(timeCursor.schema, {
  status: choice(KEY_STATUSES, 'Only keys in this status.'),
  organization_id: organizationId('Only keys of this organization.'),
  principal_id: principalId('Only keys of this principal.'),
  entitlement: entitlement('Only keys of this class.'),
});
export type KeyListQuery = Static<typeof keyListQuery>;

/** Query of `GET /v1/admin/organizations`. */
export const organizationListQuery = pagedQuery(idCursor('org').schema, {
  status: tenantStatus('Only organizations in this status.'),
});
export type OrganizationListQuery = Static<typeof organizationListQuery>;

/** Query of `GET /v1/admin/projects`. */
export const projectListQuery = pagedQuery(idCursor('prj').schema, {
  status: tenantStatus('Only projects in this status.'),
  organization_id: organizationId('Only projects of this organization.'),
});
export type ProjectListQuery = Static<typeof projectListQuery>;

/** Query of `GET /v1/admin/principals`. */
export const principalListQuery = pagedQuery(idCursor('prn').schema, {
  status: tenantStatus('Only principals in this status.'),
  organization_id: organizationId('Only principals of this organization.'),
  role: choice(PRINCIPAL_ROLES, 'Only principals with this role.'),
});
export type PrincipalListQuery = Static<typeof principalListQuery>;

/** Query of `GET /v1/admin/policies`. */
export const policyListQuery = pagedQuery(idCursor('pol').schema, {
  status: tenantStatus('Only policies in this status.'),
  key_id: keyId('Only policies scoped to this key.'),
  organization_id: organizationId('Only policies scoped to this organization.'),
  entitlement: entitlement('Only policies scoped to this entitlement class.'),
});
export type PolicyListQuery = Static<typeof policyListQuery>;
