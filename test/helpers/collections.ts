import type { Db } from 'mongodb';
import type { RotationClaim } from '../../src/store/api-keys.repo';
import type { StoredAuditRow } from '../../src/store/audit.repo';
import type { ActionLedgerEntry, ActionRecord } from '../../src/store/external-actions.repo';
import type { ExternalEventRecord } from '../../src/store/external-events.repo';
import type { OutboxMessage } from '../../src/store/outbox.repo';
import type { RequestLedgerBucket } from '../../src/store/request-ledger.repo';
import type { ServiceEvent } from '../../src/store/service-events.repo';
import type { SessionStepRecord } from '../../src/store/session-steps.repo';
import type { LineageLink } from '../../src/store/sessions.repo';
import type { SubstrateSnapshot } from '../../src/store/substrate-snapshots.repo';
import type { UsageRollup } from '../../src/store/usage-rollups.repo';
import type { ExternalStateRevision } from '../../src/store/world-external-state.repo';
import type { WorldHistoryEvent } from '../../src/store/world-history.repo';
import type { WorldObject } from '../../src/store/world-objects.repo';
import type { WorldRelationship } from '../../src/store/world-relationships.repo';
import type { WorldTask } from '../../src/store/world-tasks.repo';

/**
 * Collections a test reads or tampers with directly (repositories do not hand theirs out):
 * test code may look at the database itself.
 */
export const storedIn = (db: Db) => ({
  actionLedger: db.collection<ActionLedgerEntry>('action_ledger'),
  actions: db.collection<ActionRecord>('external_actions'),
  apiKeyRotations: db.collection<RotationClaim>('api_key_rotations'),
  artifactBlobs: db.collection<{ _id: string }>('artifact_blobs'),
  audit: db.collection<StoredAuditRow>('audit'),
  externalEvents: db.collection<ExternalEventRecord>('external_events'),
  externalStateRevisions: db.collection<ExternalStateRevision>('world_external_state_revisions'),
  outbox: db.collection<OutboxMessage>('outbox'),
  requestLedger: db.collection<RequestLedgerBucket>('request_ledger'),
  serviceEvents: db.collection<ServiceEvent>('service_events'),
  sessionLineage: db.collection<LineageLink>('session_lineage'),
  sessionSteps: db.collection<SessionStepRecord>('session_steps'),
  substrateSnapshots: db.collection<SubstrateSnapshot>('substrate_snapshots'),
  usageRollups: db.collection<UsageRollup>('usage_rollups'),
  worldHistory: db.collection<WorldHistoryEvent>('world_history'),
  worldObjects: db.collection<WorldObject>('world_objects'),
  worldRelationships: db.collection<WorldRelationship>('world_relationships'),
  worldTasks: db.collection<WorldTask>('world_tasks'),
});
