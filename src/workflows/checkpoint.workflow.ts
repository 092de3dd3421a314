import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import {
  ApplicationFailure,
  type ActivityOptions,
  proxyActivities,
  setCurrentDetails,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { CheckpointActivities } from '../activities';
import type { CheckpointRecord, CollectionCopy } from '../store/checkpoints.repo';
import { RECORD_STEP_OPTIONS } from './activity-options';
import { checkpointCurrentDetails } from './ops-details';
import type { CheckpointWorkflowInput } from './checkpoint.contract';
import { OpsStatusKey } from './shared.contract';

const { recordCheckpoint, worldPosition, writeCheckpointManifest } =
  proxyActivities<CheckpointActivities>(RECORD_STEP_OPTIONS);
// One collection per call, streamed with heartbeats: a lost worker is noticed within the
// heartbeat timeout and the copy starts again on another.
const COPY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 10 },
};
const { copyCollection } = proxyActivities<CheckpointActivities>(COPY_OPTIONS);

const SCOPE_SHA = (copies: CollectionCopy[]): string =>
  copies.map((c) => `${c.collection}:${c.sha256}`).join(',');

/**
 * One checkpoint: the world's position, then each scope's collections copied into
 * content-addressed artifacts, then `manifest.json`. The workflow is the record's single
 * writer; its history holds one activity per collection (ids and digests, never data).
 */
export async function checkpointWorkflow(
  input: CheckpointWorkflowInput,
): Promise<CheckpointRecord> {
  const record: CheckpointRecord = input.record ? { ...input.record } : scheduledRecord(input);
  let shownStatus: string | undefined;
  const save = async () => {
    if (record.status !== shownStatus) {
      upsertSearchAttributes([{ key: OpsStatusKey, value: `checkpoint.${record.status}` }]);
      shownStatus = record.status;
    }
    record.seq += 1;
    record.updated_at = new Date().toISOString();
    setCurrentDetails(checkpointCurrentDetails(record, input.collections));
    const done = Object.keys(record.scopes).length;
    await recordCheckpoint.executeWithOptions(
      {
        ...RECORD_STEP_OPTIONS,
        summary: `record checkpoint ${record.status}, ${done} of ${record.scope.length} scopes`,
      },
      [record],
    );
  };
  try {
    setCurrentDetails(checkpointCurrentDetails(record, input.collections));
    Object.assign(
      record,
      await worldPosition.executeWithOptions(
        { ...RECORD_STEP_OPTIONS, summary: "read the world's position (history head, revision)" },
        [],
      ),
    );
    await save();
    for (const scope of record.scope) {
      const copies: CollectionCopy[] = [];
      for (const collection of input.collections[scope] ?? []) {
        copies.push(
          await copyCollection.executeWithOptions(
            { ...COPY_OPTIONS, summary: `copy collection ${collection} (scope ${scope})` },
            [{ checkpoint_id: record._id, collection }],
          ),
        );
      }
      record.scopes[scope] = {
        count: copies.reduce((sum, copy) => sum + copy.count, 0),
        sha256: digestOf(SCOPE_SHA(copies)),
        collections: copies,
      };
      await save();
    }
    record.manifest = await writeCheckpointManifest.executeWithOptions(
      { ...RECORD_STEP_OPTIONS, summary: `write manifest.json of ${record.scope.length} scopes` },
      [record],
    );
    record.status = 'completed';
    record.completed_at = new Date().toISOString();
    await save();
    return record;
  } catch (error) {
    record.status = 'failed';
    record.error = error instanceof Error ? error.message : String(error);
    await save();
    throw ApplicationFailure.nonRetryable(`checkpoint ${record._id} failed: ${record.error}`);
  }
}

/** The record of a checkpoint a schedule started: every scope, named from the run. */
function scheduledRecord(input: CheckpointWorkflowInput): CheckpointRecord {
  const now = new Date().toISOString();
  return {
    _id: `chk_${uuid4().replaceAll('-', '')}`,
    label: 'scheduled',
    scope: Object.keys(input.collections) as CheckpointRecord['scope'],
    status: 'running',
    workflow_id: workflowInfo().workflowId,
    scopes: {},
    manifest: null,
    history_head: null,
    world_revision: null,
    error: null,
    requested_by: 'schedule',
    seq: 0,
    created_at: now,
    updated_at: now,
    completed_at: null,
  };
}

/** sha256 hex of a short text, in the sandbox (no node:crypto there): pure code. */
function digestOf(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
