/** The view of `GET /v1/principals/me`: who the calling key is (documents its response). */
import { ACCESS_LAYER_NAMES, FAMILIES } from '../../auth/families';
import * as schema from '../../lib/schema';
import { PRINCIPAL_ROLES, entitlement } from '../governance/schemas';
import { keyView, organizationView, principalView } from '../governance/view-schemas';

export const whoAmIView = schema.view(
  {
    key: keyView,
    principal: principalView,
    organization: organizationView,
    access: schema.view(
      {
        role: schema.choice(PRINCIPAL_ROLES, "The principal's role (`operator` opens admin)."),
        entitlement: entitlement("The key's entitlement class."),
        access_layer: schema.choice(ACCESS_LAYER_NAMES, "The key's access layer, by name."),
        families: schema.arrayOf(
          schema.choice(Object.keys(FAMILIES), 'A route family.'),
          'The built route families this key may call (planned ones answer 501 to anyone).',
          { maxItems: Object.keys(FAMILIES).length },
        ),
      },
      ['role', 'entitlement', 'access_layer', 'families'],
      'What the key may call (docs/governance.md).',
    ),
    limits: schema.view(
      {
        requests_per_minute: schema.count('Requests per minute.'),
        daily_quota: schema.count('Requests per UTC day.'),
        concurrent_deployments: schema.count('Substrate deployments running at once.'),
        cell_updates_per_day: schema.count('Substrate cell updates per UTC day.'),
      },
      ['requests_per_minute', 'daily_quota', 'concurrent_deployments', 'cell_updates_per_day'],
      "The key's limits: its class defaults or the quota policy in force.",
    ),
    links: schema.view(
      {
        temporal_ui: schema.text(
          "The Temporal Web UI, where each action's and deployment's workflow is.",
          2048,
        ),
      },
      ['temporal_ui'],
      'Where else to look.',
    ),
  },
  ['key', 'principal', 'organization', 'access', 'limits', 'links'],
  'The calling key, its principal and organization, what it may call and its limits.',
);
