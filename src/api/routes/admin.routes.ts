import {
  ACCESS_LAYER_NAMES,
  ENTITLEMENTS,
  type AccessLayerName,
  type Entitlement,
} from '../../auth/families';
import type { PrincipalRole } from '../../auth/auth-context';
import { createKey } from '../../domain/governance/admin-keys.service';
import { createPrincipal } from '../../domain/governance/principals.service';
import { createPolicy } from '../../domain/governance/quota-policies.service';
import { defineRoute, type JsonSchema, type RouteDefinition } from '../route';
import { closedObject, envelope, notImplemented, page, pagedQuery, pathParams } from './common';
import {
  arrayOf,
  choice,
  count,
  dateTime,
  decimal,
  flag,
  freeObject,
  idRef,
  integer,
  nullable,
  patterned,
  sinceParam,
  text,
  untilParam,
  view,
  type NoParams,
  type NoQuery,
  type PagedQuery,
} from './schemas';

const ISSUE = 6;
const TAGS = ['admin'];

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

const keyId = (description: string): JsonSchema => ({
  type: 'string',
  pattern: KEY_ID_PATTERN,
  description,
});
const organizationId = (description: string) => idRef('org', description);
const principalId = (description: string) => idRef('prn', description);
const tenantStatus = (description: string) => choice(TENANT_STATUSES, description);
const entitlement = (description: string) => choice(ENTITLEMENTS, description);
const name = (description: string) => text(description, 128);
const granularity = choice(['hour', 'day'], 'Rollup period.', 'day');

const accessLayerInput: JsonSchema = {
  anyOf: [
    { type: 'integer', minimum: 0, maximum: 3 },
    { type: 'string', enum: [...ACCESS_LAYER_NAMES] },
  ],
  description: 'Access layer: 0..3 or its name (`layer0_public` ... `layer3_partner`).',
};

const stamps = {
  created_at: dateTime('When created.'),
  updated_at: dateTime('Last change.'),
};

const keyView = view(
  {
    key_id: keyId('Public key id.'),
    principal_id: principalId('Principal holding the key.'),
    organization_id: organizationId('Organization of the principal.'),
    entitlement: entitlement('Entitlement class.'),
    access_layer: choice(ACCESS_LAYER_NAMES, 'Access layer, by name.'),
    label: nullable(text('Label.', 128)),
    status: choice(KEY_STATUSES, 'Key status.'),
    expires_at: nullable(dateTime('When the key expires.')),
    previous_valid_until: nullable(dateTime('Until when the pre-rotation secret is accepted.')),
    ...stamps,
  },
  ['key_id', 'principal_id', 'organization_id', 'entitlement', 'access_layer', 'status'],
  'An API key (never its secret).',
);
/** A key response that carries the secret: shown once, on create and rotate. */
const keyWithSecretView = view(
  {
    key: keyView,
    api_key: text('The full secret key (`grk_<key_id>_<secret>`); shown this once only.', 128),
  },
  ['key', 'api_key'],
);
const principalView = view(
  {
    principal_id: principalId('Principal id.'),
    name: text('Name.', 256),
    email: text('E-mail address.', 254),
    organization_id: organizationId('Organization.'),
    role: choice(PRINCIPAL_ROLES, 'Role.'),
    status: choice(TENANT_STATUSES, 'Status.'),
    ...stamps,
  },
  ['principal_id', 'name', 'email', 'organization_id', 'role', 'status'],
  'A principal.',
);
const organizationView = view(
  {
    organization_id: organizationId('Organization id.'),
    name: name('Name (unique, case-insensitive).'),
    status: choice(TENANT_STATUSES, 'Status.'),
    ...stamps,
  },
  ['organization_id', 'name', 'status'],
  'An organization.',
);
const projectView = view(
  {
    project_id: idRef('prj', 'Project id.'),
    organization_id: organizationId('Organization.'),
    name: name('Name.'),
    status: choice(TENANT_STATUSES, 'Status.'),
    ...stamps,
  },
  ['project_id', 'organization_id', 'name', 'status'],
  'A project.',
);
const policyView = view(
  {
    policy_id: idRef('pol', 'Policy id.'),
    name: name('Name.'),
    scope: freeObject('What the policy applies to: `key_id`, `organization_id` or `entitlement`.'),
    requests_per_minute: count('Requests per minute.'),
    daily_quota: count('Requests per UTC day.'),
    status: choice(TENANT_STATUSES, 'Status.'),
    ...stamps,
  },
  ['policy_id', 'name', 'scope', 'requests_per_minute', 'daily_quota', 'status'],
  'A quota policy.',
);
const statusChange = (item: JsonSchema): JsonSchema =>
  envelope(
    view({ item, previous_status: text('Status before the change.', 32) }, [
      'item',
      'previous_status',
    ]),
  );

const statusBody = (
  bodyName: string,
  idField: string,
  id: JsonSchema,
  statuses: readonly string[],
) => ({
  name: bodyName,
  schema: closedObject({ [idField]: id, status: choice(statuses, 'New status.') }, [
    idField,
    'status',
  ]),
});

const usageCounts = view(
  {
    requests: count('Requests answered.'),
    errors: count('Requests answered 4xx or 5xx.'),
    rate_limited: count('Requests answered 429.'),
    by_family: freeObject('Requests per route family.'),
  },
  ['requests', 'errors'],
);

/** The permanently private admin control plane and ops readouts (operator keys only). */
export const adminRoutes: RouteDefinition[] = [
  defineRoute<unknown, NoQuery, NoParams>({
    operationId: 'admin.accessLayers',
    method: 'GET',
    path: '/v1/admin/access-layers',
    family: 'admin_control_plane',
    summary: 'access-layer governance summary',
    description:
      'Returns the access layers with the route families each opens (planned families included), and how many active keys hold each layer.',
    tags: TAGS,
    responses: {
      200: {
        description: 'The access-layer summary.',
        schema: envelope(
          view(
            {
              layers: arrayOf(
                view(
                  {
                    layer: integer('Layer number.', 0, 3),
                    name: choice(ACCESS_LAYER_NAMES, 'Layer name.'),
                    families: arrayOf(text('Route family.', 64), 'Families needing this layer.', {
                      maxItems: 64,
                    }),
                    active_keys: count('Active keys at this layer.'),
                  },
                  ['layer', 'name', 'families'],
                ),
                'Each layer.',
                { maxItems: 4 },
              ),
              families: arrayOf(
                view(
                  {
                    family: text('Route family.', 64),
                    exposure: text('Exposure.', 64),
                    min_entitlement: entitlement('Minimum entitlement class.'),
                    min_layer: choice(ACCESS_LAYER_NAMES, 'Minimum layer.'),
                    routes: count('Routes in the family (0 for planned ones).'),
                  },
                  ['family', 'exposure', 'min_entitlement', 'min_layer'],
                ),
                'Every route family.',
                { maxItems: 64 },
              ),
            },
            ['layers', 'families'],
          ),
        ),
      },
    },
    handler: notImplemented('The access-layer summary', ISSUE),
  }),

  defineRoute<unknown, AuditQuery, NoParams>({
    operationId: 'admin.audit.list',
    method: 'GET',
    path: '/v1/admin/audit',
    family: 'admin_ops',
    summary: 'control-plane audit rows',
    description:
      'Lists control-plane audit rows, newest first: who (key and principal), what (action and target), before, after and when. No row ever holds a secret.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        key_id: keyId('Only changes made with this key.'),
        principal_id: principalId('Only changes made by this principal.'),
        action: patterned(
          'Only this action, e.g. `keys.create`.',
          '^[a-z][A-Za-z0-9_.]{0,63}$',
          64,
        ),
        target_id: patterned('Only changes to this record.', '^[A-Za-z0-9_.:-]{1,128}$', 128),
        since: sinceParam,
        until: untilParam,
      }),
    },
    responses: {
      200: {
        description: 'A page of audit rows.',
        schema: page(
          view(
            {
              audit_id: idRef('aud', 'Audit row id.'),
              at: dateTime('When.'),
              actor: view(
                { key_id: keyId('Key used.'), principal_id: principalId('Acting principal.') },
                ['key_id', 'principal_id'],
                'Who.',
              ),
              action: text('What, e.g. `keys.status`.', 64),
              target: view(
                { type: text('Record type.', 32), id: text('Record id.', 128) },
                ['type', 'id'],
                'Record changed.',
              ),
              before: nullable(freeObject('Record before (secrets never included).')),
              after: nullable(freeObject('Record after (secrets never included).')),
              request_id: text('Request that made the change.', 128),
            },
            ['audit_id', 'at', 'actor', 'action', 'target', 'before', 'after', 'request_id'],
          ),
        ),
      },
    },
    handler: notImplemented('The control-plane audit trail', ISSUE),
  }),

  defineRoute<unknown, NoQuery, NoParams>({
    operationId: 'admin.entitlements',
    method: 'GET',
    path: '/v1/admin/entitlements',
    family: 'admin_control_plane',
    summary: 'entitlement classes and usage posture',
    description:
      'Returns each entitlement class with its default limits, the quota policies that override them, how many keys hold it and their usage today.',
    tags: TAGS,
    responses: {
      200: {
        description: 'The entitlement classes.',
        schema: envelope(
          view(
            {
              classes: arrayOf(
                view(
                  {
                    entitlement: entitlement('Entitlement class.'),
                    requests_per_minute: count('Default requests per minute.'),
                    daily_quota: count('Default requests per UTC day.'),
                    policies: count('Active quota policies for the class.'),
                    active_keys: count('Active keys of the class.'),
                    requests_today: count('Requests today by keys of the class.'),
                    keys_near_quota: count('Keys above 80% of their daily quota.'),
                  },
                  ['entitlement', 'requests_per_minute', 'daily_quota'],
                ),
                'Classes, weakest first.',
                { maxItems: ENTITLEMENTS.length },
              ),
            },
            ['classes'],
          ),
        ),
      },
    },
    handler: notImplemented('The entitlement summary', ISSUE),
  }),

  defineRoute<unknown, KeyListQuery, NoParams>({
    operationId: 'admin.keys.list',
    method: 'GET',
    path: '/v1/admin/keys',
    family: 'admin_control_plane',
    summary: 'list keys by tenant or organization',
    description:
      'Lists API keys (never their secrets), optionally by organization, principal, status or entitlement.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        status: choice(KEY_STATUSES, 'Only keys in this status.'),
        organization_id: organizationId('Only keys of this organization.'),
        principal_id: principalId('Only keys of this principal.'),
        entitlement: entitlement('Only keys of this class.'),
      }),
    },
    responses: { 200: { description: 'A page of keys.', schema: page(keyView) } },
    handler: notImplemented('Key listing', ISSUE),
  }),

  defineRoute<CreateKeyRequest, NoQuery, NoParams>({
    operationId: 'admin.keys.create',
    method: 'POST',
    path: '/v1/admin/keys/create',
    family: 'admin_control_plane',
    summary: 'create API key',
    description:
      'Mints a key for a principal with an entitlement class and access layer. The secret is in this response only; only its hash is stored.',
    tags: TAGS,
    request: {
      body: {
        name: 'CreateKeyRequest',
        schema: closedObject(
          {
            principal_id: principalId('Principal the key belongs to.'),
            entitlement: entitlement('Entitlement class.'),
            access_layer: accessLayerInput,
            label: text('Label to recognise the key by.', 128),
            expires_at: dateTime('When the key stops working (default: never).'),
          },
          ['principal_id', 'entitlement', 'access_layer'],
        ),
      },
    },
    responses: {
      201: {
        description: 'The key and its secret (shown once).',
        schema: envelope(keyWithSecretView),
      },
    },
    idempotent: true,
    handler: async (req, deps) => ({
      status: 201,
      payload: await createKey(deps, req.auth!, req.requestId, req.body),
    }),
  }),

  defineRoute<RotateKeyRequest, NoQuery, NoParams>({
    operationId: 'admin.keys.rotate',
    method: 'POST',
    path: '/v1/admin/keys/rotate',
    family: 'admin_control_plane',
    summary: 'rotate API key',
    description:
      'Issues a new secret for a key; the old secret stays valid for `grace_seconds` (default 24 h). The new secret is in this response only.',
    tags: TAGS,
    request: {
      body: {
        name: 'RotateKeyRequest',
        schema: closedObject(
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
        ),
      },
    },
    responses: {
      200: {
        description: 'The key and its new secret (shown once).',
        schema: envelope(keyWithSecretView),
      },
    },
    idempotent: true,
    handler: notImplemented('Key rotation', ISSUE),
  }),

  defineRoute<SetKeyStatusRequest, NoQuery, NoParams>({
    operationId: 'admin.keys.setStatus',
    method: 'POST',
    path: '/v1/admin/keys/status',
    family: 'admin_control_plane',
    summary: 'set API key status',
    description:
      'Sets a key `active`, `suspended` or `revoked` (final); a suspended or revoked key answers 401 everywhere within seconds.',
    tags: TAGS,
    request: {
      body: statusBody('SetKeyStatusRequest', 'key_id', keyId('Key to change.'), KEY_STATUSES),
    },
    responses: { 200: { description: 'The key after the change.', schema: statusChange(keyView) } },
    handler: notImplemented('Key status changes', ISSUE),
  }),

  defineRoute<unknown, OrganizationListQuery, NoParams>({
    operationId: 'admin.organizations.list',
    method: 'GET',
    path: '/v1/admin/organizations',
    family: 'admin_control_plane',
    summary: 'list organizations',
    description: 'Lists organizations, optionally in one status.',
    tags: TAGS,
    request: { query: pagedQuery({ status: tenantStatus('Only organizations in this status.') }) },
    responses: { 200: { description: 'A page of organizations.', schema: page(organizationView) } },
    handler: notImplemented('Organization listing', ISSUE),
  }),

  defineRoute<CreateOrganizationRequest, NoQuery, NoParams>({
    operationId: 'admin.organizations.create',
    method: 'POST',
    path: '/v1/admin/organizations/create',
    family: 'admin_control_plane',
    summary: 'create organization',
    description: 'Creates an organization; a name already taken (case-insensitive) is 409.',
    tags: TAGS,
    request: {
      body: {
        name: 'CreateOrganizationRequest',
        schema: closedObject({ name: name('Organization name.') }, ['name']),
      },
    },
    responses: {
      201: { description: 'The new organization.', schema: envelope(organizationView) },
    },
    idempotent: true,
    handler: notImplemented('Organization creation', ISSUE),
  }),

  defineRoute<SetOrganizationStatusRequest, NoQuery, NoParams>({
    operationId: 'admin.organizations.setStatus',
    method: 'POST',
    path: '/v1/admin/organizations/status',
    family: 'admin_control_plane',
    summary: 'set organization status',
    description:
      'Sets an organization `active`, `suspended` or `archived`; suspending it makes every key of its principals answer 401 at once.',
    tags: TAGS,
    request: {
      body: statusBody(
        'SetOrganizationStatusRequest',
        'organization_id',
        organizationId('Organization to change.'),
        TENANT_STATUSES,
      ),
    },
    responses: {
      200: {
        description: 'The organization after the change.',
        schema: statusChange(organizationView),
      },
    },
    handler: notImplemented('Organization status changes', ISSUE),
  }),

  defineRoute<unknown, NoQuery, NoParams>({
    operationId: 'admin.overview',
    method: 'GET',
    path: '/v1/admin/overview',
    family: 'admin_ops',
    summary: 'operational overview summary',
    description:
      'Returns an operational overview: tenants and keys by status, traffic and error rate over the last 24 hours, the busiest families and keys, and backend health in brief.',
    tags: TAGS,
    responses: {
      200: {
        description: 'The overview.',
        schema: envelope(
          view(
            {
              organizations: freeObject('Organizations by status.'),
              principals: freeObject('Principals by status.'),
              keys: freeObject('Keys by status.'),
              last_24h: view(
                {
                  requests: count('Requests answered.'),
                  error_rate: decimal('Share answered 5xx.', 0, 1),
                  rate_limited: count('Requests answered 429.'),
                  p95_latency_ms: count('95th percentile latency.'),
                },
                ['requests'],
                'Traffic in the last 24 hours.',
              ),
              top_families: arrayOf(freeObject('Family and request count.'), 'Busiest families.', {
                maxItems: 10,
              }),
              top_keys: arrayOf(freeObject('Key id and request count.'), 'Busiest keys.', {
                maxItems: 10,
              }),
              health: choice(['ok', 'degraded', 'down'], 'Backend health in brief.'),
              generated_at: dateTime('When the overview was computed.'),
            },
            ['organizations', 'principals', 'keys', 'last_24h', 'health', 'generated_at'],
          ),
        ),
      },
    },
    handler: notImplemented('The operational overview', ISSUE),
  }),

  defineRoute<unknown, PolicyListQuery, NoParams>({
    operationId: 'admin.policies.list',
    method: 'GET',
    path: '/v1/admin/policies',
    family: 'admin_control_plane',
    summary: 'list quota policies',
    description:
      'Lists quota policies, optionally by status or by the key or organization they scope.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        status: tenantStatus('Only policies in this status.'),
        key_id: keyId('Only policies scoped to this key.'),
        organization_id: organizationId('Only policies scoped to this organization.'),
      }),
    },
    responses: { 200: { description: 'A page of policies.', schema: page(policyView) } },
    handler: notImplemented('Quota policy listing', ISSUE),
  }),

  defineRoute<CreatePolicyRequest, NoQuery, NoParams>({
    operationId: 'admin.policies.create',
    method: 'POST',
    path: '/v1/admin/policies/create',
    family: 'admin_control_plane',
    summary: 'create quota policy',
    description:
      'Creates a quota policy that overrides the class defaults for one key, one organization or one entitlement class (the most specific active policy wins).',
    tags: TAGS,
    request: {
      body: {
        name: 'CreatePolicyRequest',
        schema: closedObject(
          {
            name: name('Policy name.'),
            scope: {
              ...closedObject(
                {
                  key_id: keyId('Scope the policy to this key.'),
                  organization_id: organizationId('Scope the policy to this organization.'),
                  entitlement: entitlement('Scope the policy to this entitlement class.'),
                },
                [],
                'What the policy applies to: exactly one of `key_id`, `organization_id`, `entitlement`.',
              ),
              minProperties: 1,
              maxProperties: 1,
            },
            requests_per_minute: integer('Requests per minute.', 1, POLICY_LIMITS.maxPerMinute),
            daily_quota: integer('Requests per UTC day.', 1, POLICY_LIMITS.maxPerDay),
          },
          ['name', 'scope', 'requests_per_minute', 'daily_quota'],
        ),
      },
    },
    responses: { 201: { description: 'The new policy.', schema: envelope(policyView) } },
    idempotent: true,
    handler: async (req, deps) => ({
      status: 201,
      payload: await createPolicy(deps, req.auth!, req.requestId, req.body),
    }),
  }),

  defineRoute<SetPolicyStatusRequest, NoQuery, NoParams>({
    operationId: 'admin.policies.setStatus',
    method: 'POST',
    path: '/v1/admin/policies/status',
    family: 'admin_control_plane',
    summary: 'set policy status',
    description:
      'Sets a quota policy `active`, `suspended` or `archived`; only active policies apply.',
    tags: TAGS,
    request: {
      body: statusBody(
        'SetPolicyStatusRequest',
        'policy_id',
        idRef('pol', 'Policy to change.'),
        TENANT_STATUSES,
      ),
    },
    responses: {
      200: { description: 'The policy after the change.', schema: statusChange(policyView) },
    },
    handler: notImplemented('Quota policy status changes', ISSUE),
  }),

  defineRoute<unknown, PrincipalListQuery, NoParams>({
    operationId: 'admin.principals.list',
    method: 'GET',
    path: '/v1/admin/principals',
    family: 'admin_control_plane',
    summary: 'list principals',
    description: 'Lists principals, optionally by organization, status or role.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        status: tenantStatus('Only principals in this status.'),
        organization_id: organizationId('Only principals of this organization.'),
        role: choice(PRINCIPAL_ROLES, 'Only principals with this role.'),
      }),
    },
    responses: { 200: { description: 'A page of principals.', schema: page(principalView) } },
    handler: notImplemented('Principal listing', ISSUE),
  }),

  defineRoute<CreatePrincipalRequest, NoQuery, NoParams>({
    operationId: 'admin.principals.create',
    method: 'POST',
    path: '/v1/admin/principals/create',
    family: 'admin_control_plane',
    summary: 'create principal',
    description:
      'Creates a principal (a person or service holding keys) in an organization (default: `sandbox`); an e-mail already taken (case-insensitive) is 409.',
    tags: TAGS,
    request: {
      body: {
        name: 'CreatePrincipalRequest',
        schema: closedObject(
          {
            name: text('Name.', 256),
            email: {
              type: 'string',
              format: 'email',
              maxLength: 254,
              description: 'E-mail address (unique).',
            },
            organization_id: organizationId('Organization (default: the `sandbox` organization).'),
            role: choice(
              PRINCIPAL_ROLES,
              '`operator` reaches the private control plane; `member` does not.',
            ),
          },
          ['name', 'email', 'role'],
        ),
      },
    },
    responses: { 201: { description: 'The new principal.', schema: envelope(principalView) } },
    idempotent: true,
    handler: async (req, deps) => ({
      status: 201,
      payload: await createPrincipal(deps, req.auth!, req.requestId, req.body),
    }),
  }),

  defineRoute<SetPrincipalStatusRequest, NoQuery, NoParams>({
    operationId: 'admin.principals.setStatus',
    method: 'POST',
    path: '/v1/admin/principals/status',
    family: 'admin_control_plane',
    summary: 'set principal status',
    description:
      'Sets a principal `active`, `suspended` or `archived`; suspending it makes all its keys answer 401 at once.',
    tags: TAGS,
    request: {
      body: statusBody(
        'SetPrincipalStatusRequest',
        'principal_id',
        principalId('Principal to change.'),
        TENANT_STATUSES,
      ),
    },
    responses: {
      200: { description: 'The principal after the change.', schema: statusChange(principalView) },
    },
    handler: notImplemented('Principal status changes', ISSUE),
  }),

  defineRoute<unknown, ProjectListQuery, NoParams>({
    operationId: 'admin.projects.list',
    method: 'GET',
    path: '/v1/admin/projects',
    family: 'admin_control_plane',
    summary: 'list projects',
    description: 'Lists projects, optionally of one organization or in one status.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        status: tenantStatus('Only projects in this status.'),
        organization_id: organizationId('Only projects of this organization.'),
      }),
    },
    responses: { 200: { description: 'A page of projects.', schema: page(projectView) } },
    handler: notImplemented('Project listing', ISSUE),
  }),

  defineRoute<CreateProjectRequest, NoQuery, NoParams>({
    operationId: 'admin.projects.create',
    method: 'POST',
    path: '/v1/admin/projects/create',
    family: 'admin_control_plane',
    summary: 'create project',
    description: 'Creates a project in an organization; an unknown organization is 404.',
    tags: TAGS,
    request: {
      body: {
        name: 'CreateProjectRequest',
        schema: closedObject(
          {
            organization_id: organizationId('Organization the project belongs to.'),
            name: name('Project name.'),
          },
          ['organization_id', 'name'],
        ),
      },
    },
    responses: { 201: { description: 'The new project.', schema: envelope(projectView) } },
    idempotent: true,
    handler: notImplemented('Project creation', ISSUE),
  }),

  defineRoute<SetProjectStatusRequest, NoQuery, NoParams>({
    operationId: 'admin.projects.setStatus',
    method: 'POST',
    path: '/v1/admin/projects/status',
    family: 'admin_control_plane',
    summary: 'set project status',
    description: 'Sets a project `active`, `suspended` or `archived`.',
    tags: TAGS,
    request: {
      body: statusBody(
        'SetProjectStatusRequest',
        'project_id',
        idRef('prj', 'Project to change.'),
        TENANT_STATUSES,
      ),
    },
    responses: {
      200: { description: 'The project after the change.', schema: statusChange(projectView) },
    },
    handler: notImplemented('Project status changes', ISSUE),
  }),

  defineRoute<PruneLedgersRequest, NoQuery, NoParams>({
    operationId: 'admin.pruneLedgers',
    method: 'POST',
    path: '/v1/admin/prune-ledgers',
    family: 'admin_ops',
    summary: 'prune old service-side ledger rows',
    description:
      'Deletes request-ledger and service-event rows older than `older_than` (usage rollups and the audit trail are kept). With `dry_run` it only counts what would go.',
    tags: TAGS,
    request: {
      body: {
        name: 'PruneLedgersRequest',
        schema: closedObject(
          {
            older_than: dateTime('Delete rows older than this instant (ISO 8601 UTC).'),
            dry_run: flag('Only count the rows that would be deleted.', false),
          },
          ['older_than'],
        ),
      },
    },
    responses: {
      200: {
        description: 'What was (or would be) pruned.',
        schema: envelope(
          view(
            {
              dry_run: flag('True when nothing was deleted.'),
              older_than: dateTime('Cut-off.'),
              deleted: view(
                {
                  requests: count('Request-ledger rows.'),
                  service_events: count('Service-event rows.'),
                },
                ['requests', 'service_events'],
                'Rows deleted (or that would be) per ledger.',
              ),
            },
            ['dry_run', 'older_than', 'deleted'],
          ),
        ),
      },
    },
    handler: notImplemented('Ledger pruning', ISSUE),
  }),

  defineRoute<unknown, RequestLedgerQuery, NoParams>({
    operationId: 'admin.requests.list',
    method: 'GET',
    path: '/v1/admin/requests',
    family: 'admin_ops',
    summary: 'durable request ledger rows',
    description:
      'Lists request-ledger rows, newest first: route template, operation, family, status, latency, key and client address (no header, body or secret).',
    tags: TAGS,
    request: {
      query: pagedQuery({
        key_id: keyId('Only requests made with this key.'),
        status: integer('Only requests answered with this HTTP status.', 100, 599),
        route: text('Only this route template, e.g. `/v1/sessions/{session_id}`.', 256),
        since: sinceParam,
        until: untilParam,
      }),
    },
    responses: {
      200: {
        description: 'A page of request rows.',
        schema: page(
          view(
            {
              request_id: text('Request id.', 128),
              at: dateTime('When answered.'),
              method: text('HTTP method.', 8),
              route: text('Route template, or the raw path when unmatched.', 512),
              operation_id: nullable(text('Operation id.', 64)),
              family: nullable(text('Route family.', 64)),
              status: integer('HTTP status.', 100, 599),
              latency_ms: decimal('Latency in milliseconds.', 0, 3_600_000),
              key_id: nullable(keyId('Key used.')),
              principal_id: nullable(principalId('Principal of the key.')),
              client_ip: text('Client address.', 64),
              error_code: nullable(text('Error code, when an error.', 64)),
            },
            ['request_id', 'at', 'method', 'route', 'status', 'latency_ms'],
          ),
        ),
      },
    },
    handler: notImplemented('The request ledger', ISSUE),
  }),

  defineRoute<unknown, ServiceEventQuery, NoParams>({
    operationId: 'admin.serviceEvents.list',
    method: 'GET',
    path: '/v1/admin/service-events',
    family: 'admin_ops',
    summary: 'service event ledger rows',
    description:
      'Lists service-event rows, newest first: start-ups, shutdowns, backend outages and recoveries, workflow failures, bootstrap-key changes.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        kind: patterned(
          'Only events of this kind, e.g. `backend.down`.',
          '^[a-z][a-z0-9_.]{0,63}$',
          64,
        ),
        level: choice(['info', 'warn', 'error'], 'Only events of this level.'),
        since: sinceParam,
        until: untilParam,
      }),
    },
    responses: {
      200: {
        description: 'A page of service events.',
        schema: page(
          view(
            {
              event_id: idRef('sev', 'Service event id.'),
              at: dateTime('When.'),
              kind: text('Kind.', 64),
              level: choice(['info', 'warn', 'error'], 'Level.'),
              message: text('What happened.', 1024),
              detail: freeObject('Structured detail (never a secret).'),
              instance: text('Process that recorded it.', 128),
            },
            ['event_id', 'at', 'kind', 'level', 'message'],
          ),
        ),
      },
    },
    handler: notImplemented('The service event ledger', ISSUE),
  }),

  defineRoute<unknown, NoQuery, NoParams>({
    operationId: 'admin.serviceHealth',
    method: 'GET',
    path: '/v1/admin/service-health',
    family: 'admin_ops',
    summary: 'service and runtime backend health',
    description:
      'Checks each backend (MongoDB, Temporal, the worker task queue) and returns its status and latency, and the overall status.',
    tags: TAGS,
    responses: {
      200: {
        description: 'The health report.',
        schema: envelope(
          view(
            {
              status: choice(['ok', 'degraded', 'down'], 'Overall status.'),
              components: arrayOf(
                view(
                  {
                    name: text('Component, e.g. `mongodb`, `temporal`, `worker`.', 64),
                    status: choice(['ok', 'degraded', 'down'], 'Status.'),
                    latency_ms: nullable(decimal('Check latency.', 0, 600_000)),
                    detail: nullable(text('Detail (never a secret).', 1024)),
                  },
                  ['name', 'status'],
                ),
                'Each component.',
                { maxItems: 32 },
              ),
              version: text('Service version.', 32),
              uptime_seconds: count('Uptime of this api instance.'),
              checked_at: dateTime('When checked.'),
            },
            ['status', 'components', 'checked_at'],
          ),
        ),
      },
    },
    handler: notImplemented('The service health report', ISSUE),
  }),

  defineRoute<unknown, UsageQuery, NoParams>({
    operationId: 'admin.usage.list',
    method: 'GET',
    path: '/v1/admin/usage',
    family: 'admin_ops',
    summary: 'aggregated durable usage rollups',
    description:
      'Lists usage rollups (requests, errors, 429s, per family) per key and period, newest first, optionally for one key or organization.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        key_id: keyId('Only this key.'),
        organization_id: organizationId('Only keys of this organization.'),
        granularity,
        since: sinceParam,
        until: untilParam,
      }),
    },
    responses: {
      200: {
        description: 'A page of rollups.',
        schema: page(
          view(
            {
              key_id: keyId('Key.'),
              organization_id: organizationId('Organization of the key.'),
              period_start: dateTime('Start of the period (UTC).'),
              granularity: choice(['hour', 'day'], 'Period length.'),
              usage: usageCounts,
            },
            ['key_id', 'period_start', 'granularity', 'usage'],
          ),
        ),
      },
    },
    handler: notImplemented('Usage rollups', ISSUE),
  }),

  defineRoute<unknown, KeyUsageQuery, { key_id: string }>({
    operationId: 'admin.usage.get',
    method: 'GET',
    path: '/v1/admin/usage/{key_id}',
    family: 'admin_ops',
    summary: 'usage stats for one key',
    description:
      'Returns the usage of one key: its effective limits and their source, what is left of this minute and this UTC day, and rollups over the period asked.',
    tags: TAGS,
    request: {
      params: pathParams({ key_id: keyId('Public key id (12 lowercase hex).') }),
      query: {
        type: 'object',
        properties: { granularity, since: sinceParam, until: untilParam },
      },
    },
    responses: {
      200: {
        description: 'The usage of the key.',
        schema: envelope(
          view(
            {
              key_id: keyId('Key.'),
              limits: view(
                {
                  requests_per_minute: count('Requests per minute.'),
                  daily_quota: count('Requests per UTC day.'),
                  source: text('Where the limits come from: the class default or a policy id.', 64),
                },
                ['requests_per_minute', 'daily_quota', 'source'],
                'Effective limits.',
              ),
              minute: view(
                { used: count('Used.'), remaining: count('Left.'), resets_in: count('Seconds.') },
                ['used', 'remaining'],
                'The current minute.',
              ),
              day: view(
                {
                  used: count('Used.'),
                  remaining: count('Left.'),
                  resets_at: dateTime('Next 00:00 UTC.'),
                },
                ['used', 'remaining'],
                'The current UTC day.',
              ),
              totals: usageCounts,
              periods: arrayOf(
                view({ period_start: dateTime('Start of the period.'), usage: usageCounts }, [
                  'period_start',
                  'usage',
                ]),
                'Rollups over the period asked, newest first.',
                { maxItems: 1000 },
              ),
            },
            ['key_id', 'limits', 'minute', 'day', 'totals', 'periods'],
          ),
        ),
      },
    },
    handler: notImplemented('Per-key usage', ISSUE),
  }),
];
