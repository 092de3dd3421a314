/** Entitlement classes, weakest first. */
export const ENTITLEMENTS = ['sandbox', 'institutional', 'strategic'] as const;
export type Entitlement = (typeof ENTITLEMENTS)[number];

/** Access layers by name; requests accept the name or the integer, responses give the name. */
export const ACCESS_LAYER_NAMES = [
  'layer0_public',
  'layer1_public',
  'layer2_public',
  'layer3_partner',
] as const;
export type AccessLayerName = (typeof ACCESS_LAYER_NAMES)[number];
export type AccessLayer = 0 | 1 | 2 | 3;

export type Exposure =
  | 'permanently_private'
  | 'layer0_public'
  | 'layer1_public'
  | 'layer2_public'
  | 'planned_layer1'
  | 'planned_layer2'
  | 'planned_layer3';

export interface FamilyPolicy {
  exposure: Exposure;
  minEntitlement: Entitlement;
  minLayer: AccessLayer;
  /** Only keys whose principal has role `operator` (the private control plane). */
  operatorOnly: boolean;
}

const family = (
  exposure: Exposure,
  minEntitlement: Entitlement,
  minLayer: AccessLayer,
): FamilyPolicy => ({
  exposure,
  minEntitlement,
  minLayer,
  operatorOnly: exposure === 'permanently_private',
});

/** The route-family table: who may call what (docs/governance.md, Families). */
export const FAMILIES = {
  admin_control_plane: family('permanently_private', 'sandbox', 0),
  admin_ops: family('permanently_private', 'institutional', 0),
  artifacts: family('layer0_public', 'sandbox', 0),
  assays: family('layer1_public', 'institutional', 1),
  assays_research: family('planned_layer2', 'strategic', 2),
  dossiers: family('layer2_public', 'strategic', 2),
  external_action_execution: family('layer2_public', 'strategic', 2),
  external_action_proposal: family('layer2_public', 'strategic', 2),
  external_event_ingress: family('layer0_public', 'institutional', 0),
  external_reconciliation: family('layer1_public', 'institutional', 1),
  intentionality: family('layer1_public', 'institutional', 1),
  membrane_basic: family('layer0_public', 'institutional', 0),
  membrane_witness: family('layer1_public', 'institutional', 1),
  membrane_world_render: family('layer0_public', 'sandbox', 0),
  principals_self: family('layer0_public', 'sandbox', 0),
  proofs: family('layer2_public', 'strategic', 2),
  repair_witness: family('layer1_public', 'institutional', 1),
  research_future: family('planned_layer2', 'strategic', 2),
  restricted_partner_future: family('planned_layer3', 'strategic', 3),
  runtime_basic: family('layer0_public', 'sandbox', 0),
  runtime_witness: family('layer1_public', 'institutional', 1),
  scenarios: family('layer2_public', 'strategic', 2),
  sessions: family('layer0_public', 'sandbox', 0),
  shared_contexts: family('layer0_public', 'sandbox', 0),
  shared_contexts_witness: family('layer1_public', 'institutional', 1),
  substrate_assay: family('layer2_public', 'strategic', 2),
  substrate_build: family('layer2_public', 'strategic', 2),
  substrate_observation: family('layer2_public', 'strategic', 2),
  substrate_recognition: family('layer2_public', 'strategic', 2),
  substrate_seeding: family('layer2_public', 'strategic', 2),
  witness_future: family('planned_layer1', 'institutional', 1),
  worlds_basic: family('layer0_public', 'sandbox', 0),
  worlds_mutation: family('layer0_public', 'institutional', 0),
} as const satisfies Record<string, FamilyPolicy>;

export type FamilyName = keyof typeof FAMILIES;

/** Routes that need no key: health, root, docs and the sandbox access request. */
export const PUBLIC_FAMILY = 'public';
export type RouteFamily = FamilyName | typeof PUBLIC_FAMILY;

export const entitlementRank = (e: Entitlement): number => ENTITLEMENTS.indexOf(e);

/** What of a key a family's policy looks at. */
export interface FamilyHolder {
  role: 'member' | 'operator';
  entitlement: Entitlement;
  accessLayer: AccessLayer;
}

/** Whether a key with this role, class and layer may call the family's routes. */
export const familyOpensTo = (policy: FamilyPolicy, holder: FamilyHolder): boolean =>
  !(policy.operatorOnly && holder.role !== 'operator') &&
  entitlementRank(holder.entitlement) >= entitlementRank(policy.minEntitlement) &&
  holder.accessLayer >= policy.minLayer;
export const layerName = (layer: AccessLayer): AccessLayerName => ACCESS_LAYER_NAMES[layer];

/** Parses `2` or `"layer2_public"`; undefined when neither. */
export function parseAccessLayer(value: unknown): AccessLayer | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 3) {
    return value as AccessLayer;
  }
  if (typeof value === 'string') {
    const index = ACCESS_LAYER_NAMES.indexOf(value as AccessLayerName);
    if (index >= 0) return index as AccessLayer;
  }
  return undefined;
}
