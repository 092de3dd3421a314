import * as schema from '../../../lib/schema';
import { plannedRoutes } from './table';

const objectId = schema.prefixedId('obj', 'World object id.');

/** Repair as durable workflows (DESIGN.md section 9): issue #12 (checkpoints are built). */
export const checkpointAndRepairRoutes = plannedRoutes(12, 'continuous-ops', [
  {
    operationId: 'repair.request',
    method: 'POST',
    path: '/v1/repair/request',
    family: 'repair_witness',
    summary: 'request bounded repair on an object',
    capability: 'Repair requests',
    body: {
      name: 'RepairRequest',
      schema: schema.closedObject(
        {
          object_id: objectId,
          strategy: schema.choice(
            ['revalidate', 'reconcile_external', 'restore_last_good'],
            'Repair strategy.',
            'revalidate',
          ),
          to_version: schema.integer(
            'Version to restore (`restore_last_good`).',
            1,
            Number.MAX_SAFE_INTEGER,
          ),
          checkpoint_id: schema.prefixedId('chk', 'Checkpoint to restore from.'),
          reason: schema.text('Why (kept with the repair).', 1024),
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
    query: schema.pagedQuery({ object_id: objectId }),
  },
  {
    operationId: 'repair.certificate',
    method: 'GET',
    path: '/v1/repair/certificate',
    family: 'repair_witness',
    summary: 'repair certificate witness',
    capability: 'Repair certificates',
    query: schema.filterQuery({ object_id: objectId }),
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
