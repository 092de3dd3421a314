import * as adminKeysService from '../../../domain/governance/admin-keys.service';
import * as organizationsService from '../../../domain/governance/organizations.service';
import * as principalsService from '../../../domain/governance/principals.service';
import * as projectsService from '../../../domain/governance/projects.service';
import * as quotaPoliciesService from '../../../domain/governance/quota-policies.service';
import * as governanceSchemas from '../../../domain/governance/schemas';
import * as governanceViews from '../../../domain/governance/view-schemas';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope, handOn } from '../common';
import { tenantRoutes } from './tenant-routes';

/** Keys, organizations, principals, projects and quota policies (operator keys only). */
export const tenantResourceRoutes: RouteDefinition[] = [
  ...tenantRoutes({
    resource: 'keys',
    singular: 'key',
    view: governanceViews.keyView,
    list: {
      summary: 'list keys by tenant or organization',
      description:
        'Lists API keys (never their secrets or hashes), newest first, optionally by organization, principal, status or entitlement.',
      query: governanceSchemas.keyListQuery,
      run: adminKeysService.listKeys,
    },
    create: {
      summary: 'create API key',
      description:
        'Mints a key for a principal with an entitlement class and access layer. The secret is in this response only; only its hash is stored.',
      bodyName: 'CreateKeyRequest',
      links: handOn('key_id', '/payload/key_id', {
        path: { Usage: 'admin.usage.get' },
        body: { Rotate: 'admin.keys.rotate' },
      }),
      body: governanceSchemas.createKeyBody,
      view: governanceViews.keyWithSecretView,
      secretFields: ['api_key'],
      run: adminKeysService.createKey,
    },
    setStatus: {
      summary: 'set API key status',
      description:
        'Sets a key `active`, `suspended` or `revoked` (final: leaving it is 409); a suspended or revoked key answers 401 at once on this instance and within `KEY_CACHE_TTL_MS` on the others. The calling key cannot suspend or revoke itself (409).',
      bodyName: 'SetKeyStatusRequest',
      body: governanceSchemas.setKeyStatusBody,
      run: adminKeysService.setKeyStatus,
    },
  }),
  defineRoute({
    operationId: 'admin.keys.rotate',
    method: 'POST',
    path: '/v1/admin/keys/rotate',
    family: 'admin_control_plane',
    summary: 'rotate API key',
    description:
      'Issues a new secret for a key; the old secret stays valid for `grace_seconds` (default 24 h). The new secret is in this response only. A revoked key or the bootstrap key is 409 `invalid_state`; losing a concurrent rotation is 409 `conflict`.',
    request: { body: { name: 'RotateKeyRequest', schema: governanceSchemas.rotateKeyBody } },
    responses: {
      404: { description: 'No such key.' },
      409: { description: 'A revoked or bootstrap key, or a concurrent rotation.' },
      200: {
        description: 'The key and its new secret (shown once).',
        schema: envelope(governanceViews.keyWithSecretView),
      },
    },
    idempotent: true,
    secretFields: ['api_key'],
    handler: async (req, deps) => ({
      payload: await adminKeysService.rotateKey(deps, req.auth, req.requestId, req.body),
    }),
  }),
  ...tenantRoutes({
    resource: 'organizations',
    singular: 'organization',
    view: governanceViews.organizationView,
    list: {
      summary: 'list organizations',
      description: 'Lists organizations, newest first, optionally in one status.',
      query: governanceSchemas.organizationListQuery,
      run: organizationsService.listOrganizations,
    },
    create: {
      summary: 'create organization',
      description: 'Creates an organization; a name already taken (case-insensitive) is 409.',
      bodyName: 'CreateOrganizationRequest',
      links: handOn('organization_id', '/payload/organization_id', {
        body: {
          CreateProject: 'admin.projects.create',
          CreatePrincipal: 'admin.principals.create',
        },
      }),
      body: governanceSchemas.createOrganizationBody,
      run: organizationsService.createOrganization,
    },
    setStatus: {
      summary: 'set organization status',
      description:
        'Sets an organization `active`, `suspended` or `archived`; suspending it makes every key of its principals answer 401 at once. The organization of the calling key or of the bootstrap key cannot be taken out of service (409). The `sandbox` organization, home of every self-service key, is suspended or archived only with `confirm: "sandbox"`: without it 409 `invalid_state` saying how many active keys it would stop (`active_keys`); a `confirm` that is not the organization\'s name is 422.',
      bodyName: 'SetOrganizationStatusRequest',
      body: governanceSchemas.setOrganizationStatusBody,
      run: organizationsService.setOrganizationStatus,
    },
  }),
  ...tenantRoutes({
    resource: 'policies',
    singular: 'policy',
    view: governanceViews.policyView,
    list: {
      summary: 'list quota policies',
      description:
        'Lists quota policies, newest first, optionally by status or by the key, organization or class they scope.',
      query: governanceSchemas.policyListQuery,
      run: quotaPoliciesService.listPolicies,
    },
    create: {
      summary: 'create quota policy',
      description:
        "Creates a quota policy that overrides the class defaults for one key, one organization or one entitlement class (the most specific active policy wins). A policy never throttles the bootstrap operator key (ADMIN_API_KEY), and one scoped to the operators' organization, the bootstrap key's organization or the bootstrap key is 409.",
      bodyName: 'CreatePolicyRequest',
      conflict:
        "The scope is the operators' organization, the bootstrap key's organization or the bootstrap key: a policy must not throttle the control plane's way in.",
      body: governanceSchemas.createPolicyBody,
      run: quotaPoliciesService.createPolicy,
    },
    setStatus: {
      summary: 'set policy status',
      description:
        'Sets a quota policy `active`, `suspended` or `archived`; only active policies apply.',
      bodyName: 'SetPolicyStatusRequest',
      body: governanceSchemas.setPolicyStatusBody,
      run: quotaPoliciesService.setPolicyStatus,
    },
  }),
  ...tenantRoutes({
    resource: 'principals',
    singular: 'principal',
    view: governanceViews.principalView,
    list: {
      summary: 'list principals',
      description: 'Lists principals, newest first, optionally by organization, status or role.',
      query: governanceSchemas.principalListQuery,
      run: principalsService.listPrincipals,
    },
    create: {
      summary: 'create principal',
      description:
        'Creates a principal (a person or service holding keys) in an organization (default: `sandbox`); an e-mail already taken (case-insensitive) is 409.',
      bodyName: 'CreatePrincipalRequest',
      links: handOn('principal_id', '/payload/principal_id', {
        body: { CreateKey: 'admin.keys.create' },
      }),
      body: governanceSchemas.createPrincipalBody,
      run: principalsService.createPrincipal,
    },
    setStatus: {
      summary: 'set principal status',
      description:
        'Sets a principal `active`, `suspended` or `archived`; suspending it makes all its keys answer 401 at once. The principal of the calling key or of the bootstrap key cannot be taken out of service (409).',
      bodyName: 'SetPrincipalStatusRequest',
      body: governanceSchemas.setPrincipalStatusBody,
      run: principalsService.setPrincipalStatus,
    },
  }),
  ...tenantRoutes({
    resource: 'projects',
    singular: 'project',
    view: governanceViews.projectView,
    list: {
      summary: 'list projects',
      description: 'Lists projects, newest first, optionally of one organization or in one status.',
      query: governanceSchemas.projectListQuery,
      run: projectsService.listProjects,
    },
    create: {
      summary: 'create project',
      description:
        'Creates a project in an organization: an unknown organization is 404, one not active 409 `invalid_state`, a name the organization already uses (case-insensitive) 409 `conflict`.',
      bodyName: 'CreateProjectRequest',
      body: governanceSchemas.createProjectBody,
      run: projectsService.createProject,
    },
    setStatus: {
      summary: 'set project status',
      description: 'Sets a project `active`, `suspended` or `archived`.',
      bodyName: 'SetProjectStatusRequest',
      body: governanceSchemas.setProjectStatusBody,
      run: projectsService.setProjectStatus,
    },
  }),
];
