import {
  choice,
  closedObject,
  filterQuery,
  integer,
  pagedQuery,
  prefixedId,
  text,
} from '../../../lib/schema';
import { arrayOf } from '../../../lib/schema';
import { plannedRoutes } from './table';

/** Scopes a checkpoint can cover (DESIGN.md section 9). */
const CHECKPOINT_SCOPES = ['world', 'actions', 'events', 'sessions', 'substrates'] as const;
const objectId = prefixedId('obj', 'World object id.');

/** Checkpoints and repair as durable workflows (DESIGN.md section 9): issue #12. */
export const checkpointAndRepairRoutes = plannedRoutes(12, 'continuous-ops', [
  {
    operationId: 'continuousOps.checkpoint',
    method: 'POST',
    path: '/v1/continuous-ops/checkpoint',
    family: 'runtime_witness',
    summary: 'create runtime checkpoint',
    capability: 'Runtime checkpoints',
    body: {
      name: 'CheckpointRequest',
      required: false,
      schema: closedObject({
        label: text('Label of the checkpoint.', 200),
        scope: arrayOf(
          choice(CHECKPOINT_SCOPES, 'A scope.'),
          'What to checkpoint (default: all).',
          {
            minItems: 1,
            maxItems: CHECKPOINT_SCOPES.length,
            uniqueItems: true,
          },
        ),
      }),
    },
  },
  {
    operationId: 'repair.request',
    method: 'POST',
    path: '/v1/repair/request',
    family: 'repair_witness',
    summary: 'request bounded repair on an object',
    capability: 'Repair requests',
    body: {
      name: 'RepairRequest',
      schema: closedObject(
        {
          object_id: objectId,
          strategy: choice(
            ['revalidate', 'reconcile_external', 'restore_last_good'],
            'Repair strategy.',
            'revalidate',
          ),
          to_version: integer(
            'Version to restore (`restore_last_good`).',
            1,
            Number.MAX_SAFE_INTEGER,
          ),
          checkpoint_id: prefixedId('chk', 'Checkpoint to restore from.'),
          reason: text('Why (kept with the repair).', 1024),
        },
        ['object_id'],
      ),
    },
  },
  {
    operationId: 'repair.state',
    method: 'GET',
    path: '/v1/repair/state',
    family: 'repair_witness',
    summary: 'latest repair witness state',
    capability: 'Repair state',
    query: pagedQuery({ object_id: objectId }),
  },
  {
    operationId: 'repair.certificate',
    method: 'GET',
    path: '/v1/repair/certificate',
    family: 'repair_witness',
    summary: 'repair certificate witness',
    capability: 'Repair certificates',
    query: filterQuery({ object_id: objectId }),
  },
  {
    operationId: 'repair.repairability',
    method: 'GET',
    path: '/v1/repairability/{object_id}',
    family: 'repair_witness',
    summary: 'repairability for an object',
    capability: 'Repairability',
    params: { object_id: objectId },
  },
]);
