import { repairCertificate } from '../../../domain/repairs/certificate.service';
import { listRepairs, repairability, requestRepair } from '../../../domain/repairs/repairs.service';
import * as repairsSchemas from '../../../domain/repairs/schemas';
import * as repairsViews from '../../../domain/repairs/view-schemas';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope, fromQuery, handOn, page } from '../common';

/** Governed repair of world objects as durable workflows (docs/repair.md). */
export const repairRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'repair.request',
    method: 'POST',
    path: '/v1/repair/request',
    family: 'repair_witness',
    summary: 'request bounded repair on an object',
    description:
      'Starts a repair workflow (`repair-rep_…`): diagnose → plan → apply → verify. A plan that changes data is applied only by a child `world.restore_object` action that goes through the approval path; a healthy object ends `no_action_needed`. Answers 202 at once. An unknown object is 404; a second repair of an object while one runs is 409 naming it.',
    request: { body: { name: 'RepairRequest', schema: repairsSchemas.repairRequestBody } },
    responses: {
      404: { description: 'No such object.' },
      409: { description: 'A repair of this object is running.' },
      202: {
        description: 'The repair, diagnosing.',
        schema: envelope(repairsViews.repairView),
        links: handOn('object_id', '/payload/object_id', {
          path: { State: 'repair.state', Certificate: 'repair.certificate' },
        }),
      },
    },
    idempotent: true,
    handler: async (req, deps) => {
      const repair = await requestRepair(deps, req.auth, req.body);
      return {
        status: 202,
        payload: repair,
        headers: { Location: `/v1/repair/state?object_id=${repair.object_id}` },
      };
    },
  }),
  defineRoute({
    operationId: 'repair.state',
    method: 'GET',
    path: '/v1/repair/state',
    family: 'repair_witness',
    summary: 'latest repair witness state',
    description:
      'Lists repairs newest first, optionally of one object, each with its steps, findings, plan and diff, child action and status timestamps.',
    request: { query: repairsSchemas.repairListQuery },
    responses: {
      200: {
        description: 'A page of repairs.',
        schema: page(repairsViews.repairView, repairsSchemas.repairListQuery),
      },
    },
    handler: fromQuery(listRepairs),
  }),
  defineRoute({
    operationId: 'repair.certificate',
    method: 'GET',
    path: '/v1/repair/certificate',
    family: 'repair_witness',
    summary: 'repair certificate witness',
    description:
      "A certificate over the hash-chained repair ledger (its head, length and the entries covered: one object's, or the newest 1,000), signed with the service's Ed25519 key, verifiable offline (docs/repair.md).",
    request: { query: repairsSchemas.repairCertificateQuery },
    responses: {
      404: { description: 'No such world object (`object_id`).' },
      200: {
        description: 'The signed certificate.',
        schema: envelope(repairsViews.repairCertificateView),
      },
    },
    handler: fromQuery(repairCertificate),
  }),
  defineRoute({
    operationId: 'repair.repairability',
    method: 'GET',
    path: '/v1/repairability/{object_id}',
    family: 'repair_witness',
    summary: 'repairability for an object',
    description:
      'Diagnoses the object under each strategy as it would go now (what each would change, and from where), with the newest completed checkpoint, the version `restore_last_good` restores by default and the repair running on it. Changes nothing.',
    request: { params: repairsSchemas.repairabilityParams },
    responses: {
      200: {
        description: 'How the object can be repaired.',
        schema: envelope(repairsViews.repairabilityView),
      },
    },
    handler: async (req, deps) => ({
      payload: await repairability(deps, req.params.object_id),
    }),
  }),
];
