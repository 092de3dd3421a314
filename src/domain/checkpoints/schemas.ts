/** Checkpoints (docs/continuous-ops.md): what a checkpoint covers, and its inputs. */
import type { Static } from '@sinclair/typebox';
import { arrayOf, choice, closedObject, idRef, pagedQuery, text } from '../../lib/schema';
import { idCursor } from '../../lib/cursor';

/** Scopes a checkpoint can cover, and the collections each one copies. */
export const CHECKPOINT_SCOPES = ['world', 'actions', 'events', 'sessions', 'substrates'] as const;
export type CheckpointScope = (typeof CHECKPOINT_SCOPES)[number];
export const SCOPE_COLLECTIONS: Record<CheckpointScope, readonly string[]> = {
  world: ['world_objects', 'world_relationships', 'world_tasks', 'world_task_versions'],
  actions: ['external_actions', 'action_ledger'],
  events: ['external_events', 'external_reconciliations'],
  sessions: ['sessions', 'session_lineage', 'session_steps'],
  substrates: ['substrate_deployments'],
};

/** `CHECKPOINT_SCHEDULE`: an interval (`90s`, `15m`, `6h`, `1d`) or a five-field cron line. */
export const CHECKPOINT_SCHEDULE_PATTERN = '^(\\d+[smhd]|(\\S+\\s+){4}\\S+)$';

export const CHECKPOINT_STATUSES = ['running', 'completed', 'failed'] as const;
export type CheckpointStatus = (typeof CHECKPOINT_STATUSES)[number];

export const checkpointId = (description: string) => idRef('chk', description);

/** Body of `POST /v1/continuous-ops/checkpoint`. */
export const checkpointBody = closedObject({
  label: text('Label of the checkpoint.', 200),
  scope: arrayOf(choice(CHECKPOINT_SCOPES, 'A scope.'), 'What to checkpoint (default: all).', {
    minItems: 1,
    maxItems: CHECKPOINT_SCOPES.length,
    uniqueItems: true,
  }),
});
export type CheckpointBody = Static<typeof checkpointBody>;

/** Query of `GET /v1/continuous-ops/checkpoints`. */
export const checkpointListQuery = pagedQuery(idCursor('chk').schema, {
  status: choice(CHECKPOINT_STATUSES, 'Only checkpoints in this status.'),
});
export type CheckpointListQuery = Static<typeof checkpointListQuery>;
