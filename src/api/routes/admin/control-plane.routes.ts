import {
  createKey,
  listKeys,
  rotateKey,
  setKeyStatus,
} from '../../../domain/governance/admin-keys.service';
import {
  createOrganization,
  listOrganizations,
  setOrganizationStatus,
} from '../../../domain/governance/organizations.service';
import {
  createPrincipal,
  listPrincipals,
  setPrincipalStatus,
} from '../../../domain/governance/principals.service';
import {
  createProject,
  listProjects,
  setProjectStatus,
} from '../../../domain/governance/projects.service';
import {
  createPolicy,
  listPolicies,
  setPolicyStatus,
} from '../../../domain/governance/quota-policies.service';
import {
  createKeyBody,
  createOrganizationBody,
  createPolicyBody,
  createPrincipalBody,
  createProjectBody,
  keyListQuery,
  organizationListQuery,
  policyListQuery,
  principalListQuery,
  projectListQuery,
  rotateKeyBody,
  setKeyStatusBody,
  setOrganizationStatusBody,
  setPolicyStatusBody,
  setPrincipalStatusBody,
  setProjectStatusBody,
} from '../../../domain/governance/schemas';
import {
  keyView,
  keyWithSecretView,
  organizationView,
  policyView,
  principalView,
  projectView,
} from '../../../domain/governance/view-schemas';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope } from '../common';
import { tenantRoutes } from './tenant-routes';

/** Keys, organizations, principals, projects and quota policies (operator keys only). */
export const tenantResourceRoutes: RouteDefinition[] = [
  ...tenantRoutes({
    resource: 'keys',
    singular: 'key',
    view: keyView,
    list: {
      summary: 'list keys by tenant or organization',
      description:
        'Lists API keys (never their secrets or hashes), newest first, optionally by organization, principal, status or entitlement.',
      query: keyListQuery,
      run: listKeys,
    },
    create: {
      summary: 'create API key',
      description:
        'Mints a key for a principal with an entitlement class and access layer. The secret is in this response only; only its hash is stored.',
      bodyName: 'CreateKeyRequest',
      body: createKeyBody,
      view: keyWithSecretView,
      run: createKey,
    },
    setStatus: {
      summary: 'set API key status',
      description:
        'Sets a key `active`, `suspended` or `revoked` (final: leaving it is 409); a suspended or revoked key answers 401 at once on this instance and within `KEY_CACHE_TTL_MS` on the others. The calling key cannot suspend or revoke itself (409).',
      bodyName: 'SetKeyStatusRequest',
      body: setKeyStatusBody,
      run: setKeyStatus,
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
    tags: ['admin'],
    request: { body: { name: 'RotateKeyRequest', schema: rotateKeyBody } },
    responses: {
      200: {
        description: 'The key and its new secret (shown once).',
        schema: envelope(keyWithSecretView),
      },
    },
    idempotent: true,
    handler: async (req, deps) => ({
      payload: await rotateKey(deps, req.auth, req.requestId, req.body),
    }),
  }),
  ...tenantRoutes({
    resource: 'organizations',
    singular: 'organization',
    view: organizationView,
    list: {
      summary: 'list organizations',
      description: 'Lists organizations, newest first, optionally in one status.',
      query: organizationListQuery,
      run: listOrganizations,
    },
    create: {
      summary: 'create organization',
      description: 'Creates an organization; a name already taken (case-insensitive) is 409.',
      bodyName: 'CreateOrganizationRequest',
      body: createOrganizationBody,
      run: createOrganization,
    },
    setStatus: {
      summary: 'set organization status',
      description:
        'Sets an organization `active`, `suspended` or `archived`; suspending it makes every key of its principals answer 401 at once. The organization of the calling key or of the bootstrap key cannot be taken out of service (409).',
      bodyName: 'SetOrganizationStatusRequest',
      body: setOrganizationStatusBody,
      run: setOrganizationStatus,
    },
  }),
  ...tenantRoutes({
    resource: 'policies',
    singular: 'policy',
    view: policyView,
    list: {
      summary: 'list quota policies',
      description:
        'Lists quota policies, newest first, optionally by status or by the key, organization or class they scope.',
      query: policyListQuery,
      run: listPolicies,
    },
    create: {
      summary: 'create quota policy',
      description:
        'Creates a quota policy that overrides the class defaults for one key, one organization or one entitlement class (the most specific active policy wins).',
      bodyName: 'CreatePolicyRequest',
      body: createPolicyBody,
      run: createPolicy,
    },
    setStatus: {
      summary: 'set policy status',
      description:
        'Sets a quota policy `active`, `suspended` or `archived`; only active policies apply.',
      bodyName: 'SetPolicyStatusRequest',
      body: setPolicyStatusBody,
      run: setPolicyStatus,
    },
  }),
  ...tenantRoutes({
    resource: 'principals',
    singular: 'principal',
    view: principalView,
    list: {
      summary: 'list principals',
      description: 'Lists principals, newest first, optionally by organization, status or role.',
      query: principalListQuery,
      run: listPrincipals,
    },
    create: {
      summary: 'create principal',
      description:
        'Creates a principal (a person or service holding keys) in an organization (default: `sandbox`); an e-mail already taken (case-insensitive) is 409.',
      bodyName: 'CreatePrincipalRequest',
      body: createPrincipalBody,
      run: createPrincipal,
    },
    setStatus: {
      summary: 'set principal status',
      description:
        'Sets a principal `active`, `suspended` or `archived`; suspending it makes all its keys answer 401 at once. The principal of the calling key or of the bootstrap key cannot be taken out of service (409).',
      bodyName: 'SetPrincipalStatusRequest',
      body: setPrincipalStatusBody,
      run: setPrincipalStatus,
    },
  }),
  ...tenantRoutes({
    resource: 'projects',
    singular: 'project',
    view: projectView,
    list: {
      summary: 'list projects',
      description: 'Lists projects, newest first, optionally of one organization or in one status.',
      query: projectListQuery,
      run: listProjects,
    },
    create: {
      summary: 'create project',
      description:
        'Creates a project in an organization: an unknown organization is 404, one not active 409 `invalid_state`, a name the organization already uses (case-insensitive) 409 `conflict`.',
      bodyName: 'CreateProjectRequest',
      body: createProjectBody,
      run: createProject,
    },
    setStatus: {
      summary: 'set project status',
      description: 'Sets a project `active`, `suspended` or `archived`.',
      bodyName: 'SetProjectStatusRequest',
      body: setProjectStatusBody,
      run: setProjectStatus,
    },
  }),
];
