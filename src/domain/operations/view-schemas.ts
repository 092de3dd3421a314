/** Views of the operations readouts (they document the OpenAPI responses). */
import { keyId, organizationId, principalId } from '../governance/schemas';
import * as schema from '../../lib/schema';

const usageCounts = schema.view(
  {
    requests: schema.count('Requests answered.'),
    errors: schema.count('Requests answered 4xx or 5xx.'),
    server_errors: schema.count('Requests answered 5xx.'),
    rate_limited: schema.count('Requests answered 429.'),
    p95_latency_ms: schema.nullable(
      schema.count('95th percentile latency: upper bound of its histogram bucket (ms).'),
    ),
    by_family: schema.freeObject(
      'Per route family: `{requests, errors, rate_limited}`, families sorted by name.',
    ),
  },
  ['requests', 'errors', 'rate_limited', 'by_family'],
);

const byStatus = (what: string) =>
  schema.freeObject(`${what} per status (or stage), and \`total\`.`);

/** What `admin.audit.list` answers. */
export const auditRowView = schema.view(
  {
    audit_id: schema.idRef('aud', 'Audit row id.'),
    at: schema.dateTime('When.'),
    actor: schema.view(
      {
        key_id: schema.nullable(
          keyId('Key used; null on an unauthenticated public route (an access request).'),
        ),
        principal_id: principalId('Acting principal.'),
      },
      ['key_id', 'principal_id'],
      'Who.',
    ),
    action: schema.text('What, e.g. `keys.status`.', 64),
    target: schema.view(
      { type: schema.text('Record type.', 32), id: schema.text('Record id.', 128) },
      ['type', 'id'],
      'Record changed.',
    ),
    before: schema.nullable(schema.freeObject('Record before (secrets never included).')),
    after: schema.nullable(schema.freeObject('Record after (secrets never included).')),
    request_id: schema.text('Request that made the change.', 128),
  },
  ['audit_id', 'at', 'actor', 'action', 'target', 'before', 'after', 'request_id'],
);

/** What `admin.overview` answers. */
export const overviewView = schema.view(
  {
    organizations: byStatus('Organizations'),
    principals: byStatus('Principals'),
    keys: byStatus('Keys'),
    actions: byStatus('External actions'),
    deployments: byStatus('Substrate deployments by stage'),
    sessions: schema.view(
      {
        total: schema.count('Sessions.'),
        created_last_24h: schema.count('Sessions created in the last 24 hours.'),
      },
      ['total', 'created_last_24h'],
      'Sessions.',
    ),
    last_24h: schema.view(
      {
        since: schema.dateTime('Start of the window: the UTC hour 23 hours before this one.'),
        requests: schema.count('Requests answered (made with a key).'),
        errors: schema.count('Requests answered 4xx or 5xx.'),
        error_rate: schema.decimal('Share answered 5xx.', 0, 1),
        rate_limited: schema.count('Requests answered 429.'),
        p95_latency_ms: schema.nullable(
          schema.count('95th percentile latency (bucket upper bound).'),
        ),
      },
      ['requests'],
      'Keyed traffic of the current UTC hour and the 23 before it (usage rollups).',
    ),
    this_hour: schema.view(
      {
        period_start: schema.dateTime('Start of the current UTC hour.'),
        requests: schema.count('Requests answered.'),
        errors: schema.count('Requests answered 4xx or 5xx.'),
        rate_limited: schema.count('Requests answered 429.'),
      },
      ['period_start', 'requests'],
      'Keyed traffic of the current UTC hour so far.',
    ),
    top_families: schema.arrayOf(
      schema.freeObject('Family and request count.'),
      'Busiest families.',
      {
        maxItems: 10,
      },
    ),
    top_keys: schema.arrayOf(schema.freeObject('Key id and request count.'), 'Busiest keys.', {
      maxItems: 10,
    }),
    service_events: schema.view(
      {
        last_24h: schema.freeObject('Service events of the last 24 hours per level.'),
        workflow_failures_24h: schema.count('`workflow.failed` events of the last 24 hours.'),
        open: schema.arrayOf(
          schema.freeObject('A backend whose latest transition is `backend.down`.'),
          'Backends still down (latest transition in the last 24 hours).',
          { maxItems: 3 },
        ),
      },
      ['last_24h', 'open'],
      'Service events in brief.',
    ),
    health: schema.choice(
      ['ok', 'degraded', 'down'],
      'Backend health in brief: `down` when MongoDB is, `degraded` when Temporal is or no worker polls.',
    ),
    backends: schema.freeObject('MongoDB and Temporal up or down, and the worker pollers.'),
    generated_at: schema.dateTime('When the overview was computed.'),
  },
  ['organizations', 'principals', 'keys', 'last_24h', 'health', 'generated_at'],
);

/** What `admin.pruneLedgers` answers. */
export const pruneView = schema.view(
  {
    dry_run: schema.flag('True when nothing was deleted.'),
    older_than: schema.dateTime('The cutoff asked for.'),
    audit_floor: schema.dateTime('Audit rows at or after this instant are never deleted.'),
    deleted: schema.view(
      {
        requests: schema.count('Request-ledger rows.'),
        request_buckets: schema.count('Request-ledger buckets (one per flush) holding them.'),
        usage_rollups: schema.count('Usage-rollup documents.'),
        service_events: schema.count('Service-event rows.'),
        audit: schema.count('Audit rows (older than the retention floor too).'),
      },
      ['requests', 'usage_rollups', 'service_events', 'audit'],
      'Rows deleted (or that would be) per ledger.',
    ),
  },
  ['dry_run', 'older_than', 'audit_floor', 'deleted'],
);

/** What `admin.requests.list` answers. */
export const requestLedgerRowView = schema.view(
  {
    request_id: schema.text('Request id.', 128),
    at: schema.dateTime('When answered.'),
    method: schema.text('HTTP method.', 8),
    route: schema.text('Route template, or the raw path when unmatched.', 512),
    operation_id: schema.nullable(schema.text('Operation id.', 64)),
    family: schema.nullable(schema.text('Route family.', 64)),
    status: schema.integer('HTTP status.', 100, 599),
    latency_ms: schema.decimal('Latency in milliseconds.', 0, 3_600_000),
    key_id: schema.nullable(keyId('Key used.')),
    principal_id: schema.nullable(principalId('Principal of the key.')),
    client_ip: schema.text(
      'Client address, read when the request arrived (`unknown` if the connection had already closed).',
      64,
    ),
    error_code: schema.nullable(schema.text('Error code, when an error.', 64)),
  },
  ['request_id', 'at', 'method', 'route', 'status', 'latency_ms'],
);

/** What `admin.serviceEvents.list` answers. */
export const serviceEventRowView = schema.view(
  {
    event_id: schema.idRef('sev', 'Service event id.'),
    at: schema.dateTime('When.'),
    kind: schema.text('Kind.', 64),
    level: schema.choice(['info', 'warn', 'error'], 'Level.'),
    message: schema.text('What happened.', 1024),
    detail: schema.freeObject('Structured detail (never a secret).'),
    instance: schema.text('Process that recorded it.', 128),
  },
  ['event_id', 'at', 'kind', 'level', 'message'],
);

/** What `admin.serviceHealth` answers. */
export const serviceHealthView = schema.view(
  {
    status: schema.choice(['ok', 'degraded', 'down'], 'Overall status.'),
    components: schema.arrayOf(
      schema.view(
        {
          name: schema.text('Component, e.g. `mongodb`, `temporal`, `worker`.', 64),
          status: schema.choice(['ok', 'degraded', 'down'], 'Status.'),
          latency_ms: schema.nullable(schema.decimal('Check latency.', 0, 600_000)),
          detail: schema.nullable(schema.text('Detail (never a secret).', 1024)),
        },
        ['name', 'status'],
      ),
      'Each component.',
      { maxItems: 32 },
    ),
    version: schema.text('Service version.', 32),
    instance: schema.text('The api instance that answered.', 64),
    uptime_seconds: schema.count('Uptime of this api instance.'),
    checked_at: schema.dateTime('When checked.'),
  },
  ['status', 'components', 'checked_at'],
);

/** What `admin.usage.list` answers. */
export const usageRowView = schema.view(
  {
    key_id: keyId('Key.'),
    organization_id: schema.nullable(organizationId('Organization of the key.')),
    period_start: schema.dateTime('Start of the period (UTC).'),
    granularity: schema.choice(['hour', 'day'], 'Period length.'),
    usage: usageCounts,
  },
  ['key_id', 'period_start', 'granularity', 'usage'],
);

/** What `admin.usage.get` answers. */
/** Running deployments and today's cell updates against their limits. */
const heavyWorkCounts = (description: string) =>
  schema.view(
    {
      concurrent_deployments: schema.view(
        { allowed: schema.count('Limit.'), running: schema.count('Holding a slot now.') },
        ['allowed', 'running'],
      ),
      cell_updates_today: schema.view(
        {
          allowed: schema.count('Limit per UTC day.'),
          used: schema.count('Charged today (cells × ticks of each deployment).'),
          remaining: schema.count('Left today.'),
        },
        ['allowed', 'used', 'remaining'],
      ),
    },
    ['concurrent_deployments', 'cell_updates_today'],
    description,
  );

export const keyUsageView = schema.view(
  {
    key_id: keyId('Key.'),
    limits: schema.view(
      {
        requests_per_minute: schema.count('Requests per minute.'),
        daily_quota: schema.count('Requests per UTC day.'),
        source: schema.text('Where the limits come from: the class default or a policy id.', 64),
      },
      ['requests_per_minute', 'daily_quota', 'source'],
      'Effective limits.',
    ),
    minute: schema.view(
      {
        used: schema.count('Used.'),
        remaining: schema.count('Left.'),
        resets_in: schema.count('Seconds.'),
      },
      ['used', 'remaining'],
      'The current minute.',
    ),
    day: schema.view(
      {
        used: schema.count('Used.'),
        remaining: schema.count('Left.'),
        resets_at: schema.dateTime('Next 00:00 UTC.'),
      },
      ['used', 'remaining'],
      'The current UTC day.',
    ),
    heavy_work: schema.view(
      {
        key: heavyWorkCounts('Of this key.'),
        organization: heavyWorkCounts("Of the key's organization, all keys together."),
        resets_at: schema.dateTime('Next 00:00 UTC (cell updates).'),
      },
      ['key', 'organization', 'resets_at'],
      'Limits on heavy work (docs/governance.md): running deployments and cell updates charged today.',
    ),
    totals: usageCounts,
    periods: schema.arrayOf(
      schema.view({ period_start: schema.dateTime('Start of the period.'), usage: usageCounts }, [
        'period_start',
        'usage',
      ]),
      'Rollups over the period asked, newest first.',
      { maxItems: 1000 },
    ),
  },
  ['key_id', 'limits', 'minute', 'day', 'totals', 'periods'],
);
