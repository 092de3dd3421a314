/** Repairs (docs/repair.md): strategies, statuses, inputs and views. */
import type { Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { idCursor } from '../../lib/cursor';

export const REPAIR_STRATEGIES = ['revalidate', 'reconcile_external', 'restore_last_good'] as const;
export type RepairStrategy = (typeof REPAIR_STRATEGIES)[number];

/** Statuses of a repair under way, in order. */
const UNDER_WAY = ['diagnosing', 'planned', 'awaiting_approval', 'applying', 'verifying'] as const;
/** Statuses a repair ends in. */
const ENDED = ['repaired', 'no_action_needed', 'rejected', 'failed'] as const;
/** Every status, in order: the open ones, then the final ones. */
export const REPAIR_STATUSES = [...UNDER_WAY, ...ENDED] as const;
export type RepairStatus = (typeof REPAIR_STATUSES)[number];
export const FINAL_REPAIR_STATUSES: readonly RepairStatus[] = ENDED;

const objectId = schema.prefixedId('obj', 'World object id.');
export const repairId = (description: string) => schema.idRef('rep', description);

/** Body of `POST /v1/repair/request`. */
const repairRequestFields = schema.closedObject(
  {
    object_id: objectId,
    strategy: schema.choice(
      REPAIR_STRATEGIES,
      '`revalidate` checks the object against its history replay and its external-state chain; `reconcile_external` rebuilds its external state from its ingested events; `restore_last_good` brings its attributes back to `to_version`, a checkpoint copy, or the version before the newest change.',
      'revalidate',
    ),
    to_version: schema.integer(
      'Version to restore (`restore_last_good`).',
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    checkpoint_id: schema.prefixedId(
      'chk',
      'Checkpoint whose copy to restore (`restore_last_good`).',
    ),
    reason: schema.text('Why (kept with the repair and its child action).', 1024),
  },
  ['object_id'],
);
/** A restore option only with `restore_last_good`, and not both at once. */
const onlyToRestore = (field: string) =>
  schema.when(
    { required: [field] },
    { required: ['strategy'], properties: { strategy: { const: 'restore_last_good' } } },
    `${field} is only for the restore_last_good strategy`,
  );
export const repairRequestBody = schema.withRules(repairRequestFields, [
  onlyToRestore('to_version'),
  onlyToRestore('checkpoint_id'),
  schema.notBoth('to_version', 'checkpoint_id', 'give to_version or checkpoint_id, not both'),
]);
export type RepairRequestBody = Static<typeof repairRequestBody>;

/** Query of `GET /v1/repair/state`. */
export const repairListQuery = schema.pagedQuery(idCursor('rep').schema, { object_id: objectId });
export type RepairListQuery = Static<typeof repairListQuery>;

/** Query of `GET /v1/repair/certificate`. */
export const repairCertificateQuery = schema.filterQuery({ object_id: objectId });
export type RepairCertificateQuery = Static<typeof repairCertificateQuery>;

export const repairabilityParams = schema.pathParams({ object_id: objectId });
