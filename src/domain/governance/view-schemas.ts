/** Views of the control plane's records and summaries (they document the OpenAPI responses). */
import type { TSchema } from '@sinclair/typebox';
import { ACCESS_LAYER_NAMES, ENTITLEMENTS } from '../../auth/families';
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
} from '../../lib/schema';
import {
  KEY_STATUSES,
  PRINCIPAL_ROLES,
  TENANT_STATUSES,
  entitlement,
  keyId,
  organizationId,
  principalId,
} from './schemas';

const name = (description: string) => text(description, 128);

const stamps = {
  created_at: dateTime('When created.'),
  updated_at: dateTime('Last change.'),
};

const keyProperties = {
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
] as const;
export const keyView = view(keyProperties, keyRequired, 'An API key (never its secret or hash).');
/** A key response that carries the secret: shown once, on create and rotate. */
export const keyWithSecretView = view(
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
export const principalView = view(
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
export const organizationView = view(
  {
    organization_id: organizationId('Organization id.'),
    name: name('Name (unique, case-insensitive).'),
    status: choice(TENANT_STATUSES, 'Status.'),
    ...stamps,
  },
  ['organization_id', 'name', 'status'],
  'An organization.',
);
export const projectView = view(
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
export const policyView = view(
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
/** The answer of a status change: the record after it and the status before. */
export const statusChangeView = (item: TSchema) =>
  view({ item, previous_status: text('Status before the change.', 32) }, [
    'item',
    'previous_status',
  ]);

/** The access layers and the families each opens. */
export const accessLayerSummaryView = view(
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
);

/** The entitlement classes, their limits and keys. */
export const entitlementSummaryView = view(
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
        ['entitlement', 'requests_per_minute', 'daily_quota', 'policies', 'active_keys', 'keys'],
      ),
      'Classes, weakest first.',
      { maxItems: ENTITLEMENTS.length },
    ),
  },
  ['classes'],
);

/** The sandbox grant of `POST /v1/access/request` (bare, no envelope). */
export const accessGrantView = view(
  {
    api_key: text('The secret key, `grk_<key_id>_<secret>`. Store it now.', 128),
    entitlement: choice(['sandbox'], 'Entitlement class.'),
    access_layer: choice(['layer0_public'], 'Access layer.'),
    limits: view(
      {
        requests_per_minute: count('Requests per minute.'),
        daily_quota: count('Requests per UTC day.'),
      },
      ['requests_per_minute', 'daily_quota'],
    ),
    key_id: text('Public handle of the key.', 12),
  },
  ['api_key', 'entitlement', 'access_layer', 'limits', 'key_id'],
  'The sandbox grant. Not wrapped in the envelope; `api_key` is shown this once.',
);
