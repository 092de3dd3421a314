/** Views of the control plane's records and summaries (they document the OpenAPI responses). */
import type { TSchema } from '@sinclair/typebox';
import { ACCESS_LAYER_NAMES, ENTITLEMENTS } from '../../auth/families';
import * as schema from '../../lib/schema';
import {
  KEY_STATUSES,
  PRINCIPAL_ROLES,
  TENANT_STATUSES,
  entitlement,
  keyId,
  organizationId,
  principalId,
} from './schemas';

const name = (description: string) => schema.text(description, 128);

const stamps = {
  created_at: schema.dateTime('When created.'),
  updated_at: schema.dateTime('Last change.'),
};

const keyProperties = {
  key_id: keyId('Public key id.'),
  display_prefix: schema.text('How the key starts (`grk_<key_id>_…`); never enough to use it.', 32),
  principal_id: principalId('Principal holding the key.'),
  organization_id: organizationId('Organization of the principal.'),
  entitlement: entitlement('Entitlement class.'),
  access_layer: schema.choice(ACCESS_LAYER_NAMES, 'Access layer, by name.'),
  label: schema.nullable(schema.text('Label.', 128)),
  status: schema.choice(KEY_STATUSES, 'Key status.'),
  expires_at: schema.nullable(schema.dateTime('When the key expires.')),
  last_used_at: schema.nullable(
    schema.dateTime('Last request with the key (advanced in batches).'),
  ),
  rotations: schema.count('Rotations so far.'),
  previous_valid_until: schema.nullable(
    schema.dateTime('Until when the pre-rotation secret is accepted.'),
  ),
  bootstrap: schema.flag('Seeded from ADMIN_API_KEY (re-seeded at each restart).'),
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
] as const;
export const keyView = schema.view(
  keyProperties,
  keyRequired,
  'An API key (never its secret or hash).',
);
/** A key response that carries the secret: shown once, on create and rotate. */
export const keyWithSecretView = schema.view(
  {
    ...keyProperties,
    api_key: schema.text(
      'The full secret key (`grk_<key_id>_<secret>`); shown this once only: an `Idempotency-Key` replay answers `[redacted: …]` (header `Idempotent-Redacted: api_key`).',
      128,
    ),
    limits: schema.view(
      {
        requests_per_minute: schema.count('Class default requests per minute.'),
        daily_quota: schema.count('Class default requests per UTC day.'),
      },
      [],
      'Class default limits (create only; quota policies may override them).',
    ),
  },
  [...keyRequired, 'api_key'],
  'The key and its secret.',
);
export const principalView = schema.view(
  {
    principal_id: principalId('Principal id.'),
    name: schema.text('Name.', 256),
    email: schema.text('E-mail address.', 254),
    organization_id: organizationId('Organization.'),
    role: schema.choice(PRINCIPAL_ROLES, 'Role.'),
    status: schema.choice(TENANT_STATUSES, 'Status.'),
    ...stamps,
  },
  ['principal_id', 'name', 'email', 'organization_id', 'role', 'status'],
  'A principal.',
);
export const organizationView = schema.view(
  {
    organization_id: organizationId('Organization id.'),
    name: name('Name (unique, case-insensitive).'),
    status: schema.choice(TENANT_STATUSES, 'Status.'),
    ...stamps,
  },
  ['organization_id', 'name', 'status'],
  'An organization.',
);
export const projectView = schema.view(
  {
    project_id: schema.idRef('prj', 'Project id.'),
    organization_id: organizationId('Organization.'),
    name: name('Name.'),
    status: schema.choice(TENANT_STATUSES, 'Status.'),
    ...stamps,
  },
  ['project_id', 'organization_id', 'name', 'status'],
  'A project.',
);
export const policyView = schema.view(
  {
    policy_id: schema.idRef('pol', 'Policy id.'),
    name: name('Name.'),
    scope: schema.freeObject(
      'What the policy applies to: `key_id`, `organization_id` or `entitlement`.',
    ),
    requests_per_minute: schema.count('Requests per minute.'),
    daily_quota: schema.count('Requests per UTC day.'),
    concurrent_deployments: schema.count('Running deployments per key (when set).'),
    cell_updates_per_day: schema.count('Cell updates per key and UTC day (when set).'),
    organization_concurrent_deployments: schema.count(
      "The organization's running deployments (when set).",
    ),
    organization_cell_updates_per_day: schema.count(
      "The organization's cell updates per UTC day (when set).",
    ),
    status: schema.choice(TENANT_STATUSES, 'Status.'),
    ...stamps,
  },
  ['policy_id', 'name', 'scope', 'requests_per_minute', 'daily_quota', 'status'],
  'A quota policy.',
);
/** The answer of a status change: the record after it and the status before. */
export const statusChangeView = (item: TSchema) =>
  schema.view({ item, previous_status: schema.text('Status before the change.', 32) }, [
    'item',
    'previous_status',
  ]);

/** The access layers and the families each opens. */
export const accessLayerSummaryView = schema.view(
  {
    layers: schema.arrayOf(
      schema.view(
        {
          layer: schema.integer('Layer number.', 0, 3),
          name: schema.choice(ACCESS_LAYER_NAMES, 'Layer name.'),
          families: schema.arrayOf(
            schema.text('Route family.', 64),
            'Families needing this layer.',
            {
              maxItems: 64,
            },
          ),
          active_keys: schema.count('Active keys at this layer.'),
        },
        ['layer', 'name', 'families'],
      ),
      'Each layer.',
      { maxItems: 4 },
    ),
    families: schema.arrayOf(
      schema.view(
        {
          family: schema.text('Route family.', 64),
          exposure: schema.text('Exposure.', 64),
          min_entitlement: entitlement('Minimum entitlement class.'),
          min_layer: schema.choice(ACCESS_LAYER_NAMES, 'Minimum layer.'),
          operator_only: schema.flag('Only keys of `operator` principals.'),
          routes: schema.count('Routes in the family (0 for planned ones).'),
        },
        ['family', 'exposure', 'min_entitlement', 'min_layer', 'routes'],
      ),
      'Every route family.',
      { maxItems: 64 },
    ),
  },
  ['layers', 'families'],
);

/** The entitlement classes, their limits and keys. */
export const entitlementSummaryView = schema.view(
  {
    classes: schema.arrayOf(
      schema.view(
        {
          entitlement: entitlement('Entitlement class.'),
          requests_per_minute: schema.count('Default requests per minute.'),
          daily_quota: schema.count('Default requests per UTC day.'),
          policies: schema.count('Active quota policies for the class.'),
          active_keys: schema.count('Active keys of the class.'),
          keys: schema.view(
            {
              active: schema.count('Active keys.'),
              suspended: schema.count('Suspended keys.'),
              revoked: schema.count('Revoked keys.'),
            },
            ['active', 'suspended', 'revoked'],
            'Keys of the class by status.',
          ),
        },
        ['entitlement', 'requests_per_minute', 'daily_quota', 'policies', 'active_keys', 'keys'],
      ),
      'Classes, weakest first.',
      { maxItems: ENTITLEMENTS.length },
    ),
  },
  ['classes'],
);

/** The sandbox grant of `POST /v1/access/request` (bare, no envelope). */
export const accessGrantView = schema.view(
  {
    api_key: schema.text('The secret key, `grk_<key_id>_<secret>`. Store it now.', 128),
    entitlement: schema.choice(['sandbox'], 'Entitlement class.'),
    access_layer: schema.choice(['layer0_public'], 'Access layer.'),
    limits: schema.view(
      {
        requests_per_minute: schema.count('Requests per minute.'),
        daily_quota: schema.count('Requests per UTC day.'),
      },
      ['requests_per_minute', 'daily_quota'],
    ),
    key_id: schema.text('Public handle of the key.', 12),
  },
  ['api_key', 'entitlement', 'access_layer', 'limits', 'key_id'],
  'The sandbox grant. Not wrapped in the envelope; `api_key` is shown this once.',
);
