import { ACCESS_LAYER_NAMES, ENTITLEMENTS } from '../../auth/families';
import {
  createKey,
  listKeys,
  rotateKey,
  setKeyStatus,
} from '../../domain/governance/admin-keys.service';
import {
  createOrganization,
  listOrganizations,
  setOrganizationStatus,
} from '../../domain/governance/organizations.service';
import {
  createPrincipal,
  listPrincipals,
  setPrincipalStatus,
} from '../../domain/governance/principals.service';
import {
  createProject,
  listProjects,
  setProjectStatus,
} from '../../domain/governance/projects.service';
import {
  createPolicy,
  listPolicies,
  setPolicyStatus,
} from '../../domain/governance/quota-policies.service';
import { accessLayerSummary, entitlementSummary } from '../../domain/governance/summaries.service';
import { defineRoute, type JsonSchema, type RouteDefinition } from '../route';
import { closedObject, envelope, page, pagedQuery } from './common';
import {
  arrayOf,
  choice,
  count,
  dateTime,
  flag,
  freeObject,
  idRef,
  integer,
  nullable,
  text,
  view,
  type NoParams,
  type NoQuery,
} from './schemas';
import {
  KEY_STATUSES,
  POLICY_LIMITS,
  PRINCIPAL_ROLES,
  ROTATION_GRACE,
  TAGS,
  TENANT_STATUSES,
  keyId,
  organizationId,
  principalId,
  type CreateKeyRequest,
  type CreateOrganizationRequest,
  type CreatePolicyRequest,
  type CreatePrincipalRequest,
  type CreateProjectRequest,
  type KeyListQuery,
  type OrganizationListQuery,
  type PolicyListQuery,
  type PrincipalListQuery,
  type ProjectListQuery,
  type RotateKeyRequest,
  type SetKeyStatusRequest,
  type SetOrganizationStatusRequest,
  type SetPolicyStatusRequest,
  type SetPrincipalStatusRequest,
  type SetProjectStatusRequest,
} from './admin.schemas';

const tenantStatus = (description: string) => choice(TENANT_STATUSES, description);
const entitlement = (description: string) => choice(ENTITLEMENTS, description);
const name = (description: string) => text(description, 128);

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

const keyProperties: Record<string, JsonSchema> = {
  key_id: keyId('Public key id.'),
  display_prefix: text('How the key starts (`grk_<key_id>_…`); never enough to use it.', 32),
  principal_id: principalId('Principal holding the key.'),
  organization_id: organizationId('Organization of the principal.'),
  entitlement: entitlement('Entitlement class.'),
  access_layer: choice(ACCESS_LAYER_NAMES, 'Access layer, by name.'),
  label: nullable(text('Label.', 128)),
  status: choice(KEY_STATUSES, 'Key status.'),
  expires_at: nullable(dateTime('When the key expires.')),
  last_used_at: nullable(dateTime('Last request with the key (advanced in batches).')),
  rotations: count('Rotations so far.'),
  previous_valid_until: nullable(dateTime('Until when the pre-rotation secret is accepted.')),
  bootstrap: flag('Seeded from ADMIN_API_KEY (re-seeded at each restart).'),
  ...stamps,
};
const keyRequired = [
  'key_id',
  'display_prefix',
  'principal_id',
  'organization_id',
  'entitlement',
  'access_layer',
  'status',
];
const keyView = view(keyProperties, keyRequired, 'An API key (never its secret or hash).');
/** A key response that carries the secret: shown once, on create and rotate. */
const keyWithSecretView = view(
  {
    ...keyProperties,
    api_key: text('The full secret key (`grk_<key_id>_<secret>`); shown this once only.', 128),
    limits: view(
      {
        requests_per_minute: count('Class default requests per minute.'),
        daily_quota: count('Class default requests per UTC day.'),
      },
      [],
      'Class default limits (create only; quota policies may override them).',
    ),
  },
  [...keyRequired, 'api_key'],
  'The key and its secret.',
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

/** The permanently private admin control plane (operator keys only). */
export const adminControlPlaneRoutes: RouteDefinition[] = [
  defineRoute({
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
                    operator_only: flag('Only keys of `operator` principals.'),
                    routes: count('Routes in the family (0 for planned ones).'),
                  },
                  ['family', 'exposure', 'min_entitlement', 'min_layer', 'routes'],
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
    handler: async (_req, deps) => {
      // Imported when called: the app imports this table, so a static import would be a
      // cycle. By the first request every table is loaded.
      const { allRoutes } = await import('../app');
      return {
        payload: await accessLayerSummary(
          deps,
          allRoutes(() => ({})),
        ),
      };
    },
  }),

  defineRoute({
    operationId: 'admin.entitlements',
    method: 'GET',
    path: '/v1/admin/entitlements',
    family: 'admin_control_plane',
    summary: 'entitlement classes and usage posture',
    description:
      'Returns each entitlement class with its default limits, the active class-scoped quota policies that override them and how many keys hold it, by status.',
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
                    keys: view(
                      {
                        active: count('Active keys.'),
                        suspended: count('Suspended keys.'),
                        revoked: count('Revoked keys.'),
                      },
                      ['active', 'suspended', 'revoked'],
                      'Keys of the class by status.',
                    ),
                  },
                  [
                    'entitlement',
                    'requests_per_minute',
                    'daily_quota',
                    'policies',
                    'active_keys',
                    'keys',
                  ],
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
    handler: async (_req, deps) => ({ payload: await entitlementSummary(deps) }),
  }),

  defineRoute({
    operationId: 'admin.keys.list',
    method: 'GET',
    path: '/v1/admin/keys',
    family: 'admin_control_plane',
    summary: 'list keys by tenant or organization',
    description:
      'Lists API keys (never their secrets or hashes), newest first, optionally by organization, principal, status or entitlement.',
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
    handler: async (req, deps) => ({ payload: await listKeys(deps, req.query) }),
  }),

  defineRoute({
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

  defineRoute({
    operationId: 'admin.keys.rotate',
    method: 'POST',
    path: '/v1/admin/keys/rotate',
    family: 'admin_control_plane',
    summary: 'rotate API key',
    description:
      'Issues a new secret for a key; the old secret stays valid for `grace_seconds` (default 24 h). The new secret is in this response only. A revoked key or the bootstrap key is 409 `invalid_state`; losing a concurrent rotation is 409 `conflict`.',
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
    handler: async (req, deps) => ({
      payload: await rotateKey(deps, req.auth!, req.requestId, req.body),
    }),
  }),

  defineRoute({
    operationId: 'admin.keys.setStatus',
    method: 'POST',
    path: '/v1/admin/keys/status',
    family: 'admin_control_plane',
    summary: 'set API key status',
    description:
      'Sets a key `active`, `suspended` or `revoked` (final: leaving it is 409); a suspended or revoked key answers 401 at once on this instance and within `KEY_CACHE_TTL_MS` on the others. The calling key cannot suspend or revoke itself (409).',
    tags: TAGS,
    request: {
      body: statusBody('SetKeyStatusRequest', 'key_id', keyId('Key to change.'), KEY_STATUSES),
    },
    responses: { 200: { description: 'The key after the change.', schema: statusChange(keyView) } },
    handler: async (req, deps) => ({
      payload: await setKeyStatus(deps, req.auth!, req.requestId, req.body),
    }),
  }),

  defineRoute({
    operationId: 'admin.organizations.list',
    method: 'GET',
    path: '/v1/admin/organizations',
    family: 'admin_control_plane',
    summary: 'list organizations',
    description: 'Lists organizations, newest first, optionally in one status.',
    tags: TAGS,
    request: { query: pagedQuery({ status: tenantStatus('Only organizations in this status.') }) },
    responses: { 200: { description: 'A page of organizations.', schema: page(organizationView) } },
    handler: async (req, deps) => ({ payload: await listOrganizations(deps, req.query) }),
  }),

  defineRoute({
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
    handler: async (req, deps) => ({
      status: 201,
      payload: await createOrganization(deps, req.auth!, req.requestId, req.body),
    }),
  }),

  defineRoute({
    operationId: 'admin.organizations.setStatus',
    method: 'POST',
    path: '/v1/admin/organizations/status',
    family: 'admin_control_plane',
    summary: 'set organization status',
    description:
      'Sets an organization `active`, `suspended` or `archived`; suspending it makes every key of its principals answer 401 at once. The organization of the calling key or of the bootstrap key cannot be taken out of service (409).',
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
    handler: async (req, deps) => ({
      payload: await setOrganizationStatus(deps, req.auth!, req.requestId, req.body),
    }),
  }),

  defineRoute({
    operationId: 'admin.policies.list',
    method: 'GET',
    path: '/v1/admin/policies',
    family: 'admin_control_plane',
    summary: 'list quota policies',
    description:
      'Lists quota policies, newest first, optionally by status or by the key, organization or class they scope.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        status: tenantStatus('Only policies in this status.'),
        key_id: keyId('Only policies scoped to this key.'),
        organization_id: organizationId('Only policies scoped to this organization.'),
        entitlement: entitlement('Only policies scoped to this entitlement class.'),
      }),
    },
    responses: { 200: { description: 'A page of policies.', schema: page(policyView) } },
    handler: async (req, deps) => ({ payload: await listPolicies(deps, req.query) }),
  }),

  defineRoute({
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

  defineRoute({
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
    handler: async (req, deps) => ({
      payload: await setPolicyStatus(deps, req.auth!, req.requestId, req.body),
    }),
  }),

  defineRoute({
    operationId: 'admin.principals.list',
    method: 'GET',
    path: '/v1/admin/principals',
    family: 'admin_control_plane',
    summary: 'list principals',
    description: 'Lists principals, newest first, optionally by organization, status or role.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        status: tenantStatus('Only principals in this status.'),
        organization_id: organizationId('Only principals of this organization.'),
        role: choice(PRINCIPAL_ROLES, 'Only principals with this role.'),
      }),
    },
    responses: { 200: { description: 'A page of principals.', schema: page(principalView) } },
    handler: async (req, deps) => ({ payload: await listPrincipals(deps, req.query) }),
  }),

  defineRoute({
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

  defineRoute({
    operationId: 'admin.principals.setStatus',
    method: 'POST',
    path: '/v1/admin/principals/status',
    family: 'admin_control_plane',
    summary: 'set principal status',
    description:
      'Sets a principal `active`, `suspended` or `archived`; suspending it makes all its keys answer 401 at once. The principal of the calling key or of the bootstrap key cannot be taken out of service (409).',
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
    handler: async (req, deps) => ({
      payload: await setPrincipalStatus(deps, req.auth!, req.requestId, req.body),
    }),
  }),

  defineRoute({
    operationId: 'admin.projects.list',
    method: 'GET',
    path: '/v1/admin/projects',
    family: 'admin_control_plane',
    summary: 'list projects',
    description: 'Lists projects, newest first, optionally of one organization or in one status.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        status: tenantStatus('Only projects in this status.'),
        organization_id: organizationId('Only projects of this organization.'),
      }),
    },
    responses: { 200: { description: 'A page of projects.', schema: page(projectView) } },
    handler: async (req, deps) => ({ payload: await listProjects(deps, req.query) }),
  }),

  defineRoute({
    operationId: 'admin.projects.create',
    method: 'POST',
    path: '/v1/admin/projects/create',
    family: 'admin_control_plane',
    summary: 'create project',
    description:
      'Creates a project in an organization: an unknown organization is 404, one not active 409 `invalid_state`, a name the organization already uses (case-insensitive) 409 `conflict`.',
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
    handler: async (req, deps) => ({
      status: 201,
      payload: await createProject(deps, req.auth!, req.requestId, req.body),
    }),
  }),

  defineRoute({
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
    handler: async (req, deps) => ({
      payload: await setProjectStatus(deps, req.auth!, req.requestId, req.body),
    }),
  }),
];
