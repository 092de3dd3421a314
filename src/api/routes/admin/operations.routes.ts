import { listAudit } from '../../../domain/operations/audit.service';
import { overview } from '../../../domain/operations/overview.service';
import { pruneLedgers } from '../../../domain/operations/prune.service';
import { listRequests } from '../../../domain/operations/requests.service';
import { listServiceEvents } from '../../../domain/operations/service-events.service';
import { serviceHealth } from '../../../domain/operations/service-health.service';
import { keyUsage, listUsage } from '../../../domain/operations/usage.service';
import { keyId } from '../../../domain/governance/schemas';
import * as operationsSchemas from '../../../domain/operations/schemas';
import * as operationsViews from '../../../domain/operations/view-schemas';
import { pathParams } from '../../../lib/schema';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope, fromQuery, page } from '../common';

/** The permanently private admin ops readouts (operator keys only). */
export const adminOpsRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'admin.audit.list',
    method: 'GET',
    path: '/v1/admin/audit',
    family: 'admin_ops',
    summary: 'control-plane audit rows',
    description:
      'Lists control-plane audit rows, newest first: who (key and principal), what (action and target), before, after and when. No row ever holds a secret.',
    request: {
      query: operationsSchemas.auditQuery,
    },
    responses: {
      200: {
        description: 'A page of audit rows.',
        schema: page(operationsViews.auditRowView, operationsSchemas.auditQuery),
      },
    },
    handler: fromQuery(listAudit),
  }),

  defineRoute({
    operationId: 'admin.overview',
    method: 'GET',
    path: '/v1/admin/overview',
    family: 'admin_ops',
    summary: 'operational overview summary',
    description:
      'Returns an operational overview: tenants and keys by status, traffic and error rate over the last 24 hours, the busiest families and keys, and backend health in brief.',
    responses: {
      200: {
        description: 'The overview.',
        schema: envelope(operationsViews.overviewView),
      },
    },
    handler: async (_req, deps) => ({ payload: await overview(deps) }),
  }),

  defineRoute({
    operationId: 'admin.pruneLedgers',
    method: 'POST',
    path: '/v1/admin/prune-ledgers',
    family: 'admin_ops',
    summary: 'prune old service-side ledger rows',
    description:
      'Deletes what is older than `older_than`, which must be at least `LEDGER_MIN_RETENTION_DAYS` (default 7) days ago; a real prune must say `confirm: "delete"` (422 otherwise): request-ledger buckets whose every row is older, usage rollups of hours that ended by then, service events, and audit rows older than both `older_than` and the retention floor (now − `AUDIT_RETENTION_DAYS`, default 365 days): an audit row younger than the floor is never deleted. With `dry_run` it only counts what would go. A real prune writes an audit row (`ledgers.prune`).',
    request: {
      body: {
        name: 'PruneLedgersRequest',
        schema: operationsSchemas.pruneLedgersBody,
      },
    },
    responses: {
      200: {
        description: 'What was (or would be) pruned.',
        schema: envelope(operationsViews.pruneView),
      },
    },
    handler: async (req, deps) => ({
      payload: await pruneLedgers(deps, req.auth, req.requestId, req.body),
    }),
  }),

  defineRoute({
    operationId: 'admin.requests.list',
    method: 'GET',
    path: '/v1/admin/requests',
    family: 'admin_ops',
    summary: 'durable request ledger rows',
    description:
      'Lists request-ledger rows, newest first: route template, operation, family, status, latency, key and client address (no header, body or secret).',
    request: {
      query: operationsSchemas.requestLedgerQuery,
    },
    responses: {
      200: {
        description: 'A page of request rows.',
        schema: page(operationsViews.requestLedgerRowView, operationsSchemas.requestLedgerQuery),
      },
    },
    handler: fromQuery(listRequests),
  }),

  defineRoute({
    operationId: 'admin.serviceEvents.list',
    method: 'GET',
    path: '/v1/admin/service-events',
    family: 'admin_ops',
    summary: 'service event ledger rows',
    description:
      'Lists service-event rows, newest first: start-ups, shutdowns, backend outages and recoveries, workflow failures, bootstrap-key changes.',
    request: {
      query: operationsSchemas.serviceEventQuery,
    },
    responses: {
      200: {
        description: 'A page of service events.',
        schema: page(operationsViews.serviceEventRowView, operationsSchemas.serviceEventQuery),
      },
    },
    handler: fromQuery(listServiceEvents),
  }),

  defineRoute({
    operationId: 'admin.serviceHealth',
    method: 'GET',
    path: '/v1/admin/service-health',
    family: 'admin_ops',
    summary: 'service and runtime backend health',
    description:
      'Checks each backend (MongoDB, Temporal, the worker task queue) and returns its status and latency, and the overall status.',
    responses: {
      200: {
        description: 'The health report.',
        schema: envelope(operationsViews.serviceHealthView),
      },
    },
    handler: async (_req, deps) => ({ payload: await serviceHealth(deps) }),
  }),

  defineRoute({
    operationId: 'admin.usage.list',
    method: 'GET',
    path: '/v1/admin/usage',
    family: 'admin_ops',
    summary: 'aggregated durable usage rollups',
    description:
      'Lists usage rollups (requests, errors, 429s, per family) per key and period, newest first, optionally for one key or organization.',
    request: {
      query: operationsSchemas.usageQuery,
    },
    responses: {
      200: {
        description: 'A page of rollups.',
        schema: page(operationsViews.usageRowView, operationsSchemas.usageQuery),
      },
    },
    handler: fromQuery(listUsage),
  }),

  defineRoute({
    operationId: 'admin.usage.get',
    method: 'GET',
    path: '/v1/admin/usage/{key_id}',
    family: 'admin_ops',
    summary: 'usage stats for one key',
    description:
      'Returns the usage of one key: its effective limits and their source, what is left of this minute and this UTC day, and rollups over the period asked.',
    request: {
      params: pathParams({ key_id: keyId('Public key id (12 lowercase hex).') }),
      query: operationsSchemas.keyUsageQuery,
    },
    responses: {
      200: {
        description: 'The usage of the key.',
        schema: envelope(operationsViews.keyUsageView),
      },
    },
    handler: async (req, deps) => ({
      payload: await keyUsage(deps, req.params.key_id, req.query),
    }),
  }),
];
