import type { Db, IndexDescription } from 'mongodb';

/**
 * Every secondary index, by collection: the store's access paths in one place, ensured at
 * boot by api and worker alike. Collections read by `_id` only (artifacts and their blobs,
 * snapshots, session lineage, steps, revisions, claims) have none. Only what
 * FerretDB v1 and MongoDB both build: plain and unique indexes, never TTL or partial ones.
 */
export const INDEXES: Record<string, IndexDescription[]> = {
  action_inbox: [{ key: { status: 1, _id: -1 }, name: 'by_status' }],
  action_ledger: [
    { key: { at: -1, action_id: -1, seq: -1 }, name: 'by_time_and_seq' },
    { key: { action_id: 1, seq: 1 }, name: 'by_action' },
    { key: { shared_context_id: 1, at: 1 }, name: 'by_context' },
  ],
  api_keys: [
    { key: { principal_id: 1 }, name: 'by_principal' },
    { key: { organization_id: 1, _id: 1 }, name: 'by_organization' },
    { key: { created_at: -1, _id: -1 }, name: 'by_created' },
  ],
  approval_rules: [{ key: { status: 1, _id: -1 }, name: 'by_status' }],
  approver_keys: [{ key: { principal_id: 1, _id: -1 }, name: 'by_principal' }],
  audit: [
    { key: { 'target.id': 1, _id: -1 }, name: 'by_target' },
    { key: { at: -1, _id: -1 }, name: 'by_time' },
  ],
  cell_update_charges: [
    { key: { key_id: 1, day: 1 }, name: 'by_key_day' },
    { key: { organization_id: 1, day: 1 }, name: 'by_organization_day' },
  ],
  checkpoints: [{ key: { status: 1, _id: -1 }, name: 'by_status' }],
  deployment_slots: [
    { key: { scope: 1 }, name: 'by_scope' },
    { key: { deployment_id: 1 }, name: 'by_deployment' },
  ],
  external_actions: [
    { key: { status: 1, _id: -1 }, name: 'by_status' },
    { key: { shared_context_id: 1, _id: -1 }, name: 'by_context' },
    { key: { 'target.world_object_ref': 1, _id: -1 }, name: 'by_target' },
  ],
  external_events: [
    { key: { event_id: -1 }, name: 'by_event_id' },
    { key: { world_object_ref: 1, event_id: -1 }, name: 'by_object' },
  ],
  idempotency_keys: [{ key: { created_at: 1 }, name: 'by_created' }],
  organizations: [{ key: { name_key: 1 }, unique: true, name: 'name_key_unique' }],
  notifications: [{ key: { subscription_id: 1, at: -1, _id: -1 }, name: 'by_subscription' }],
  outbox: [{ key: { channel: 1, created_at: -1 }, name: 'by_channel' }],
  principals: [
    { key: { email_key: 1 }, unique: true, name: 'email_key_unique' },
    { key: { organization_id: 1, _id: -1 }, name: 'by_organization' },
  ],
  projects: [
    { key: { organization_id: 1, _id: -1 }, name: 'by_organization' },
    { key: { organization_id: 1, name_key: 1 }, unique: true, name: 'organization_name_unique' },
  ],
  quota_policies: [{ key: { status: 1 }, name: 'by_status' }],
  rate_counters: [
    { key: { subject: 1, window: 1 }, name: 'by_subject_window' },
    { key: { expires_at: 1 }, name: 'by_expiry' },
  ],
  // One ledger entry per repair (an activity retry finds the first).
  repair_ledger: [
    { key: { repair_id: 1 }, unique: true, name: 'repair_unique' },
    { key: { object_id: 1, _id: 1 }, name: 'by_object' },
  ],
  repairs: [{ key: { object_id: 1, _id: -1 }, name: 'by_object' }],
  request_ledger: [
    { key: { last_at: -1 }, name: 'by_last_at' },
    { key: { first_at: 1 }, name: 'by_first_at' },
  ],
  service_events: [
    { key: { at: -1, _id: -1 }, name: 'by_time' },
    { key: { kind: 1, at: -1 }, name: 'by_kind' },
  ],
  substrate_deployments: [{ key: { stage: 1, _id: -1 }, name: 'by_stage' }],
  subscriptions: [{ key: { status: 1 }, name: 'by_status' }],
  usage_rollups: [
    { key: { key_id: 1, hour: 1 }, name: 'by_key_hour' },
    { key: { hour: -1, key_id: 1 }, name: 'by_hour' },
    { key: { day: -1, key_id: 1 }, name: 'by_day' },
  ],
  world_external_state_revisions: [{ key: { object_id: 1, revision: -1 }, name: 'by_object' }],
  world_history: [
    { key: { object_id: 1, _id: -1 }, name: 'by_object' },
    { key: { at: -1, _id: -1 }, name: 'by_time' },
    { key: { object_refs: 1 }, name: 'by_refs' },
  ],
  world_objects: [{ key: { kind: 1, _id: 1 }, name: 'by_kind' }],
  // One relationship per (from, kind, to): the same edge twice would mean nothing more.
  world_relationships: [
    { key: { from: 1, kind: 1, to: 1 }, unique: true, name: 'edge_unique' },
    { key: { to: 1, kind: 1 }, name: 'by_to' },
  ],
  world_task_versions: [{ key: { task_id: 1, 'task.version': 1 }, name: 'by_task' }],
};

export async function ensureIndexes(db: Db): Promise<void> {
  for (const [collection, indexes] of Object.entries(INDEXES)) {
    // One command per index: FerretDB v1 panics on some createIndexes of several at once.
    for (const { key, ...options } of indexes)
      await db.collection(collection).createIndex(key, options);
  }
}
