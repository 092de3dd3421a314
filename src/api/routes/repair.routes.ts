import { defineRoute, type RouteDefinition } from '../route';
import { closedObject, envelope, notImplemented, pathParams, prefixedId } from './common';
import {
  arrayOf,
  choice,
  count,
  dateTime,
  flag,
  freeObject,
  idRef,
  nullable,
  text,
  view,
  type NoParams,
  type NoQuery,
  type ObjectFilterQuery,
} from './schemas';

const TAGS = ['repair'];

/** Repair strategies (DESIGN.md section 5). */
export const REPAIR_STRATEGIES = ['restore_last_good', 'reconcile_external', 'revalidate'] as const;
export type RepairStrategy = (typeof REPAIR_STRATEGIES)[number];

/** Stages of a repair workflow. */
export const REPAIR_STAGES = ['diagnose', 'plan', 'apply', 'verify'] as const;
/** Statuses of a repair record. */
export const REPAIR_STATUSES = ['running', 'repaired', 'not_needed', 'failed'] as const;

/** Body of `POST /v1/repair/request`. */
export interface RepairRequest {
  object_id: string;
  strategy?: RepairStrategy;
  reason?: string;
}

type ObjectParams = { object_id: string };

const objectFilter = {
  type: 'object',
  properties: {
    object_id: idRef('obj', 'Only repairs of this world object (default: all objects).'),
  },
};

const repairView = view(
  {
    repair_id: prefixedId('rep', 'Repair id.'),
    object_id: idRef('obj', 'World object under repair.'),
    strategy: choice(REPAIR_STRATEGIES, 'Strategy applied.'),
    reason: nullable(text('Why the repair was requested.', 1024)),
    status: choice(REPAIR_STATUSES, 'Repair status.'),
    stage: choice(REPAIR_STAGES, 'Current or last stage of the workflow.'),
    workflow_id: text('Temporal workflow id (`repair-rep_...`).', 128),
    witness: nullable(
      view(
        {
          diagnosis: freeObject('What was found wrong.'),
          plan: freeObject('What the repair changes.'),
          verified: flag('True when verification passed.'),
          digest: text('sha256 of this repair record.', 128),
          previous_digest: nullable(text('Digest of the previous record in the chain.', 128)),
        },
        ['digest'],
        'Witness of the repair, once recorded.',
      ),
    ),
    requested_by: text('Principal that asked for the repair.', 64),
    created_at: dateTime('When the repair was requested.'),
    updated_at: dateTime('When the repair last changed.'),
  },
  ['repair_id', 'object_id', 'strategy', 'status', 'stage', 'workflow_id', 'created_at'],
  'A repair record.',
);

/** Repair requests and repair witnesses. */
export const repairRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'repair.certificate',
    method: 'GET',
    path: '/v1/repair/certificate',
    family: 'repair_witness',
    summary: 'repair certificate witness',
    description:
      'Returns the repair certificate: an HMAC-signed digest over the chain of repair records (of one object, or of all), which anyone holding the records can recompute.',
    tags: TAGS,
    request: { query: objectFilter },
    responses: {
      200: {
        description: 'The certificate.',
        schema: envelope(
          view(
            {
              object_id: nullable(idRef('obj', 'Object the certificate covers; null for all.')),
              chain_length: count('Repair records in the chain.'),
              head_digest: nullable(text('Digest of the newest record.', 128)),
              chain_intact: flag('True when every record links to its predecessor.'),
              algorithm: choice(['HMAC-SHA-256'], 'Signature algorithm.'),
              signature: text('Signature over the head digest and chain length.', 256),
              issued_at: dateTime('When the certificate was issued.'),
            },
            ['chain_length', 'head_digest', 'chain_intact', 'algorithm', 'signature', 'issued_at'],
          ),
        ),
      },
    },
    handler: notImplemented('Repair certificates'),
  }),

  defineRoute({
    operationId: 'repair.request',
    method: 'POST',
    path: '/v1/repair/request',
    family: 'repair_witness',
    summary: 'request bounded repair on an object',
    description:
      'Starts a bounded repair of one world object as a workflow (diagnose, plan, apply, verify) recorded with a witness. A repair already running for the object is 409.',
    tags: TAGS,
    request: {
      body: {
        name: 'RepairRequest',
        schema: closedObject(
          {
            object_id: idRef('obj', 'World object to repair.'),
            strategy: choice(
              REPAIR_STRATEGIES,
              '`restore_last_good` rolls back to the last verified version; `reconcile_external` re-applies external state; `revalidate` only checks and records. Default: chosen by diagnosis.',
            ),
            reason: text('Why the repair is asked for (kept in the record).', 1024),
          },
          ['object_id'],
        ),
      },
    },
    responses: { 201: { description: 'The repair, started.', schema: envelope(repairView) } },
    idempotent: true,
    handler: notImplemented('Repair requests'),
  }),

  defineRoute({
    operationId: 'repair.state',
    method: 'GET',
    path: '/v1/repair/state',
    family: 'repair_witness',
    summary: 'latest repair witness state',
    description:
      'Returns the latest repair record (of one object, or of any) with its witness; `repair` is null when nothing was ever repaired.',
    tags: TAGS,
    request: { query: objectFilter },
    responses: {
      200: {
        description: 'The latest repair state.',
        schema: envelope(
          view(
            {
              object_id: nullable(idRef('obj', 'Object asked about; null for all.')),
              repair: nullable(repairView),
              total: count('Repair records in scope.'),
            },
            ['repair', 'total'],
          ),
        ),
      },
    },
    handler: notImplemented('Repair state'),
  }),

  defineRoute({
    operationId: 'repair.repairability',
    method: 'GET',
    path: '/v1/repairability/{object_id}',
    family: 'repair_witness',
    summary: 'repairability for an object',
    description:
      'Says whether and how a world object can be repaired: each strategy with whether it applies and why, and the last verified version to restore.',
    tags: TAGS,
    request: { params: pathParams({ object_id: prefixedId('obj', 'World object id.') }) },
    responses: {
      200: {
        description: 'The repairability of the object.',
        schema: envelope(
          view(
            {
              object_id: idRef('obj', 'World object id.'),
              repairable: flag('True when at least one strategy applies.'),
              strategies: arrayOf(
                view(
                  {
                    strategy: choice(REPAIR_STRATEGIES, 'Strategy.'),
                    applicable: flag('Whether it applies now.'),
                    reason: text('Why (or why not).', 1024),
                  },
                  ['strategy', 'applicable', 'reason'],
                ),
                'Every strategy with its verdict.',
                { maxItems: 8 },
              ),
              last_good_version: nullable(count('Last verified version of the object.')),
              repair_in_progress: nullable(idRef('rep', 'Repair running for the object.')),
            },
            ['object_id', 'repairable', 'strategies'],
          ),
        ),
      },
    },
    handler: notImplemented('Repairability'),
  }),
];
