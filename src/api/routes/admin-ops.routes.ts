import { defineRoute, type RouteDefinition } from '../route';
import { listAudit } from '../../domain/operations/audit.service';
import { overview } from '../../domain/operations/overview.service';
import { pruneLedgers } from '../../domain/operations/prune.service';
import { listRequests } from '../../domain/operations/requests.service';
import { listServiceEvents } from '../../domain/operations/service-events.service';
import { serviceHealth } from '../../domain/operations/service-health.service';
import { keyUsage, listUsage } from '../../domain/operations/usage.service';
import { closedObject, envelope, page, pagedQuery, pathParams } from './common';
import {
  arrayOf,
  choice,
  count,
  dateTime,
  decimal,
  flag,
  freeObject,
  idRef,
  integer,
  nullable,
  patterned,
  sinceParam,
  text,
  untilParam,
  view,
  type NoParams,
  type NoQuery,
} from './schemas';
import {
  TAGS,
  keyId,
  organizationId,
  principalId,
  type AuditQuery,
  type KeyUsageQuery,
  type PruneLedgersRequest,
  type RequestLedgerQuery,
  type ServiceEventQuery,
  type UsageQuery,
} from './admin.schemas';

const granularity = choice(['hour', 'day'], 'Rollup period.', 'day');

const usageCounts = view(
  {
    requests: count('Requests answered.'),
    errors: count('Requests answered 4xx or 5xx.'),
    server_errors: count('Requests answered 5xx.'),
    rate_limited: count('Requests answered 429.'),
    p95_latency_ms: nullable(
      count('95th percentile latency: upper bound of its histogram bucket (ms).'),
    ),
    by_family: freeObject(
      'Per route family: `{requests, errors, rate_limited}`, families sorted by name.',
    ),
  },
  ['requests', 'errors', 'rate_limited', 'by_family'],
);

const byStatus = (what: string) => freeObject(`${what} per status (or stage), and \`total\`.`);

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
    tags: TAGS,
    request: {
      query: pagedQuery({
        key_id: keyId('Only changes made with this key.'),
        principal_id: principalId('Only changes made by this principal.'),
        action: patterned(
          'Only this action, e.g. `keys.create`.',
          '^[a-z][A-Za-z0-9_.]{0,63}$',
          64,
        ),
        target_id: patterned('Only changes to this record.', '^[A-Za-z0-9_.:-]{1,128}$', 128),
        since: sinceParam,
        until: untilParam,
      }),
    },
    responses: {
      200: {
        description: 'A page of audit rows.',
        schema: page(
          view(
            {
              audit_id: idRef('aud', 'Audit row id.'),
              at: dateTime('When.'),
              actor: view(
                { key_id: keyId('Key used.'), principal_id: principalId('Acting principal.') },
                ['key_id', 'principal_id'],
                'Who.',
              ),
              action: text('What, e.g. `keys.status`.', 64),
              target: view(
                { type: text('Record type.', 32), id: text('Record id.', 128) },
                ['type', 'id'],
                'Record changed.',
              ),
              before: nullable(freeObject('Record before (secrets never included).')),
              after: nullable(freeObject('Record after (secrets never included).')),
              request_id: text('Request that made the change.', 128),
            },
            ['audit_id', 'at', 'actor', 'action', 'target', 'before', 'after', 'request_id'],
          ),
        ),
      },
    },
    handler: async (req, deps) => ({ payload: await listAudit(deps, req.query) }),
  }),

  defineRoute({
    operationId: 'admin.overview',
    method: 'GET',
    path: '/v1/admin/overview',
    family: 'admin_ops',
    summary: 'operational overview summary',
    description:
      'Returns an operational overview: tenants and keys by status, traffic and error rate over the last 24 hours, the busiest families and keys, and backend health in brief.',
    tags: TAGS,
    responses: {
      200: {
        description: 'The overview.',
        schema: envelope(
          view(
            {
              organizations: byStatus('Organizations'),
              principals: byStatus('Principals'),
              keys: byStatus('Keys'),
              actions: byStatus('External actions'),
              deployments: byStatus('Substrate deployments by stage'),
              sessions: view(
                {
                  total: count('Sessions.'),
                  created_last_24h: count('Sessions created in the last 24 hours.'),
                },
                ['total', 'created_last_24h'],
                'Sessions.',
              ),
              last_24h: view(
                {
                  since: dateTime('Start of the window: the UTC hour 23 hours before this one.'),
                  requests: count('Requests answered (made with a key).'),
                  errors: count('Requests answered 4xx or 5xx.'),
                  error_rate: decimal('Share answered 5xx.', 0, 1),
                  rate_limited: count('Requests answered 429.'),
                  p95_latency_ms: nullable(count('95th percentile latency (bucket upper bound).')),
                },
                ['requests'],
                'Keyed traffic of the current UTC hour and the 23 before it (usage rollups).',
              ),
              this_hour: view(
                {
                  period_start: dateTime('Start of the current UTC hour.'),
                  requests: count('Requests answered.'),
                  errors: count('Requests answered 4xx or 5xx.'),
                  rate_limited: count('Requests answered 429.'),
                },
                ['period_start', 'requests'],
                'Keyed traffic of the current UTC hour so far.',
              ),
              top_families: arrayOf(freeObject('Family and request count.'), 'Busiest families.', {
                maxItems: 10,
              }),
              top_keys: arrayOf(freeObject('Key id and request count.'), 'Busiest keys.', {
                maxItems: 10,
              }),
              service_events: view(
                {
                  last_24h: freeObject('Service events of the last 24 hours per level.'),
                  workflow_failures_24h: count('`workflow.failed` events of the last 24 hours.'),
                  open: arrayOf(
                    freeObject('A backend whose latest transition is `backend.down`.'),
                    'Backends still down (latest transition in the last 24 hours).',
                    { maxItems: 3 },
                  ),
                },
                ['last_24h', 'open'],
                'Service events in brief.',
              ),
              health: choice(
                ['ok', 'degraded', 'down'],
                'Backend health in brief: `down` when MongoDB is, `degraded` when Temporal is or no worker polls.',
              ),
              backends: freeObject('MongoDB and Temporal up or down, and the worker pollers.'),
              generated_at: dateTime('When the overview was computed.'),
            },
            ['organizations', 'principals', 'keys', 'last_24h', 'health', 'generated_at'],
          ),
        ),
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
      'Deletes what is older than `older_than` (not in the future): request-ledger buckets whose every row is older, usage rollups of hours that ended by then, service events, and audit rows older than both `older_than` and the retention floor (now − `AUDIT_RETENTION_DAYS`, default 365 days): an audit row younger than the floor is never deleted. With `dry_run` it only counts what would go. A real prune writes an audit row (`ledgers.prune`).',
    tags: TAGS,
    request: {
      body: {
        name: 'PruneLedgersRequest',
        schema: closedObject(
          {
            older_than: dateTime('Delete rows older than this instant (ISO 8601 UTC).'),
            dry_run: flag('Only count the rows that would be deleted.', false),
          },
          ['older_than'],
        ),
      },
    },
    responses: {
      200: {
        description: 'What was (or would be) pruned.',
        schema: envelope(
          view(
            {
              dry_run: flag('True when nothing was deleted.'),
              audit_floor: dateTime('Audit rows at or after this instant are never deleted.'),
              deleted: view(
                {
                  requests: count('Request-ledger rows.'),
                  request_buckets: count('Request-ledger buckets (one per flush) holding them.'),
                  usage_rollups: count('Usage-rollup documents.'),
                  service_events: count('Service-event rows.'),
                  audit: count('Audit rows (older than the retention floor too).'),
                },
                ['requests', 'usage_rollups', 'service_events', 'audit'],
                'Rows deleted (or that would be) per ledger.',
              ),
            },
            ['dry_run', 'older_than', 'audit_floor', 'deleted'],
          ),
        ),
      },
    },
    handler: async (req, deps) => ({
      payload: await pruneLedgers(deps, req.auth!, req.requestId, req.body),
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
    tags: TAGS,
    request: {
      query: pagedQuery({
        key_id: keyId('Only requests made with this key.'),
        status: integer('Only requests answered with this HTTP status.', 100, 599),
        route: text('Only this route template, e.g. `/v1/sessions/{session_id}`.', 256),
        since: sinceParam,
        until: untilParam,
      }),
    },
    responses: {
      200: {
        description: 'A page of request rows.',
        schema: page(
          view(
            {
              request_id: text('Request id.', 128),
              at: dateTime('When answered.'),
              method: text('HTTP method.', 8),
              route: text('Route template, or the raw path when unmatched.', 512),
              operation_id: nullable(text('Operation id.', 64)),
              family: nullable(text('Route family.', 64)),
              status: integer('HTTP status.', 100, 599),
              latency_ms: decimal('Latency in milliseconds.', 0, 3_600_000),
              key_id: nullable(keyId('Key used.')),
              principal_id: nullable(principalId('Principal of the key.')),
              client_ip: text('Client address.', 64),
              error_code: nullable(text('Error code, when an error.', 64)),
            },
            ['request_id', 'at', 'method', 'route', 'status', 'latency_ms'],
          ),
        ),
      },
    },
    handler: async (req, deps) => ({ payload: await listRequests(deps, req.query) }),
  }),

  defineRoute({
    operationId: 'admin.serviceEvents.list',
    method: 'GET',
    path: '/v1/admin/service-events',
    family: 'admin_ops',
    summary: 'service event ledger rows',
    description:
      'Lists service-event rows, newest first: start-ups, shutdowns, backend outages and recoveries, workflow failures, bootstrap-key changes.',
    tags: TAGS,
    request: {
      query: pagedQuery({
        kind: patterned(
          'Only events of this kind, e.g. `backend.down`.',
          '^[a-z][a-z0-9_.]{0,63}$',
          64,
        ),
        level: choice(['info', 'warn', 'error'], 'Only events of this level.'),
        since: sinceParam,
        until: untilParam,
      }),
    },
    responses: {
      200: {
        description: 'A page of service events.',
        schema: page(
          view(
            {
              event_id: idRef('sev', 'Service event id.'),
              at: dateTime('When.'),
              kind: text('Kind.', 64),
              level: choice(['info', 'warn', 'error'], 'Level.'),
              message: text('What happened.', 1024),
              detail: freeObject('Structured detail (never a secret).'),
              instance: text('Process that recorded it.', 128),
            },
            ['event_id', 'at', 'kind', 'level', 'message'],
          ),
        ),
      },
    },
    handler: async (req, deps) => ({ payload: await listServiceEvents(deps, req.query) }),
  }),

  defineRoute({
    operationId: 'admin.serviceHealth',
    method: 'GET',
    path: '/v1/admin/service-health',
    family: 'admin_ops',
    summary: 'service and runtime backend health',
    description:
      'Checks each backend (MongoDB, Temporal, the worker task queue) and returns its status and latency, and the overall status.',
    tags: TAGS,
    responses: {
      200: {
        description: 'The health report.',
        schema: envelope(
          view(
            {
              status: choice(['ok', 'degraded', 'down'], 'Overall status.'),
              components: arrayOf(
                view(
                  {
                    name: text('Component, e.g. `mongodb`, `temporal`, `worker`.', 64),
                    status: choice(['ok', 'degraded', 'down'], 'Status.'),
                    latency_ms: nullable(decimal('Check latency.', 0, 600_000)),
                    detail: nullable(text('Detail (never a secret).', 1024)),
                  },
                  ['name', 'status'],
                ),
                'Each component.',
                { maxItems: 32 },
              ),
              version: text('Service version.', 32),
              instance: text('The api instance that answered.', 64),
              uptime_seconds: count('Uptime of this api instance.'),
              checked_at: dateTime('When checked.'),
            },
            ['status', 'components', 'checked_at'],
          ),
        ),
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
    tags: TAGS,
    request: {
      query: pagedQuery({
        key_id: keyId('Only this key.'),
        organization_id: organizationId('Only keys of this organization.'),
        granularity,
        since: sinceParam,
        until: untilParam,
      }),
    },
    responses: {
      200: {
        description: 'A page of rollups.',
        schema: page(
          view(
            {
              key_id: keyId('Key.'),
              organization_id: nullable(organizationId('Organization of the key.')),
              period_start: dateTime('Start of the period (UTC).'),
              granularity: choice(['hour', 'day'], 'Period length.'),
              usage: usageCounts,
            },
            ['key_id', 'period_start', 'granularity', 'usage'],
          ),
        ),
      },
    },
    handler: async (req, deps) => ({ payload: await listUsage(deps, req.query) }),
  }),

  defineRoute({
    operationId: 'admin.usage.get',
    method: 'GET',
    path: '/v1/admin/usage/{key_id}',
    family: 'admin_ops',
    summary: 'usage stats for one key',
    description:
      'Returns the usage of one key: its effective limits and their source, what is left of this minute and this UTC day, and rollups over the period asked.',
    tags: TAGS,
    request: {
      params: pathParams({ key_id: keyId('Public key id (12 lowercase hex).') }),
      query: {
        type: 'object',
        properties: { granularity, since: sinceParam, until: untilParam },
      },
    },
    responses: {
      200: {
        description: 'The usage of the key.',
        schema: envelope(
          view(
            {
              key_id: keyId('Key.'),
              limits: view(
                {
                  requests_per_minute: count('Requests per minute.'),
                  daily_quota: count('Requests per UTC day.'),
                  source: text('Where the limits come from: the class default or a policy id.', 64),
                },
                ['requests_per_minute', 'daily_quota', 'source'],
                'Effective limits.',
              ),
              minute: view(
                { used: count('Used.'), remaining: count('Left.'), resets_in: count('Seconds.') },
                ['used', 'remaining'],
                'The current minute.',
              ),
              day: view(
                {
                  used: count('Used.'),
                  remaining: count('Left.'),
                  resets_at: dateTime('Next 00:00 UTC.'),
                },
                ['used', 'remaining'],
                'The current UTC day.',
              ),
              totals: usageCounts,
              periods: arrayOf(
                view({ period_start: dateTime('Start of the period.'), usage: usageCounts }, [
                  'period_start',
                  'usage',
                ]),
                'Rollups over the period asked, newest first.',
                { maxItems: 1000 },
              ),
            },
            ['key_id', 'limits', 'minute', 'day', 'totals', 'periods'],
          ),
        ),
      },
    },
    handler: async (req, deps) => ({
      payload: await keyUsage(deps, req.params.key_id, req.query),
    }),
  }),
];
