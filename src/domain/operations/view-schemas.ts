/** Views of the operations readouts (they document the OpenAPI responses). */
import { keyId, organizationId, principalId } from '../governance/schemas';
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
  text,
  view,
} from '../../lib/schema';

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

/** What `admin.audit.list` answers. */
export const auditRowView = view(
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
);

/** What `admin.overview` answers. */
export const overviewView = view(
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
);

/** What `admin.pruneLedgers` answers. */
export const pruneView = view(
  {
    dry_run: flag('True when nothing was deleted.'),
    older_than: dateTime('The cutoff asked for.'),
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
);

/** What `admin.requests.list` answers. */
export const requestLedgerRowView = view(
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
);

/** What `admin.serviceEvents.list` answers. */
export const serviceEventRowView = view(
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
);

/** What `admin.serviceHealth` answers. */
export const serviceHealthView = view(
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
);

/** What `admin.usage.list` answers. */
export const usageRowView = view(
  {
    key_id: keyId('Key.'),
    organization_id: nullable(organizationId('Organization of the key.')),
    period_start: dateTime('Start of the period (UTC).'),
    granularity: choice(['hour', 'day'], 'Period length.'),
    usage: usageCounts,
  },
  ['key_id', 'period_start', 'granularity', 'usage'],
);

/** What `admin.usage.get` answers. */
export const keyUsageView = view(
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
);
