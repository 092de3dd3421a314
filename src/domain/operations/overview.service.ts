import type { DomainInfra } from '../infra';
import { periodKey, periodStart } from './periods';
import { addRollup, emptyTotals, p95LatencyMs, usageView } from './usage-totals';

type Deps = Pick<DomainInfra, 'monitor' | 'repos'>;

const HOUR_MS = 3_600_000;
const TOP = 10;

/**
 * Keyed traffic of the current UTC hour and the 23 before it, summed from the usage
 * rollups: totals, the current hour alone, and the busiest families and keys.
 */
async function traffic(deps: Pick<DomainInfra, 'repos'>, nowMs: number) {
  const firstHour = periodKey(nowMs - 23 * HOUR_MS, 'hour');
  const thisHour = periodKey(nowMs, 'hour');
  const day = emptyTotals();
  const hour = emptyTotals();
  const byKey = new Map<string, number>();
  const cursor = deps.repos.usageRollups.find({ hour: { $gte: firstHour } }, { hour: -1 });
  try {
    for await (const rollup of cursor) {
      addRollup(day, rollup);
      if (rollup.hour === thisHour) addRollup(hour, rollup);
      byKey.set(rollup.key_id, (byKey.get(rollup.key_id) ?? 0) + rollup.requests);
    }
  } finally {
    await cursor.close();
  }
  const top = <K extends string>(entries: [string, number][], name: K) =>
    entries
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, TOP)
      .map(
        ([id, requests]) => ({ [name]: id, requests }) as Record<K, string> & { requests: number },
      );
  return {
    last_24h: {
      since: periodStart(firstHour),
      requests: day.requests,
      errors: day.errors,
      error_rate:
        day.requests === 0 ? 0 : Math.round((day.server_errors / day.requests) * 1e4) / 1e4,
      rate_limited: day.rate_limited,
      p95_latency_ms: p95LatencyMs(day.latency_buckets),
    },
    this_hour: { period_start: periodStart(thisHour), ...pick(usageView(hour)) },
    top_families: top(
      [...day.by_family].map(([family, counts]) => [family, counts.requests]),
      'family',
    ),
    top_keys: top([...byKey], 'key_id'),
  };
}

const pick = (usage: ReturnType<typeof usageView>) => ({
  requests: usage.requests,
  errors: usage.errors,
  rate_limited: usage.rate_limited,
});

/**
 * Service events of the last 24 hours by level, workflow failures among them, and the
 * backends whose latest transition (seen by any instance) in that window is `down`.
 */
async function serviceEvents(deps: Pick<DomainInfra, 'repos'>, nowMs: number) {
  const since = new Date(nowMs - 24 * HOUR_MS).toISOString();
  const repo = deps.repos.serviceEvents;
  const [byLevel, transitions, workflowFailures] = await Promise.all([
    repo.countByLevelSince(since),
    repo.ofKindsSince(['backend.down', 'backend.up'], since),
    repo.countOfKindSince('workflow.failed', since),
  ]);
  const latest = new Map<string, (typeof transitions)[number]>();
  for (const event of transitions) latest.set(String(event.detail['backend']), event);
  const open = [...latest.values()]
    .filter((event) => event.kind === 'backend.down')
    .map((event) => ({
      event_id: event._id,
      backend: event.detail['backend'],
      since: event.at,
      instance: event.instance,
      message: event.message,
    }));
  return { last_24h: byLevel, workflow_failures_24h: workflowFailures, open };
}

/**
 * `GET /v1/admin/overview`: tenants, keys, actions, deployments and sessions by status,
 * keyed traffic of the last 24 hours from the rollups, the service events of the last 24
 * hours with the backends still down, and backend health in brief (no probe workflow).
 */
export async function overview(deps: Deps) {
  const nowMs = Date.now();
  const { repos } = deps;
  const [organizations, principals, keys, actions, deployments, sessions, usage, events, probe] =
    await Promise.all([
      repos.organizations.countByStatus(),
      repos.principals.countByStatus(),
      repos.apiKeys.countByStatus(),
      repos.externalActions.countByStatus(),
      repos.substrateDeployments.countByStage(),
      repos.sessions
        .countTotalAndSince(new Date(nowMs - 24 * HOUR_MS).toISOString())
        .then(({ total, since }) => ({ total, created_last_24h: since })),
      traffic(deps, nowMs),
      serviceEvents(deps, nowMs),
      deps.monitor.probe(),
    ]);
  const health = !probe.mongodb.up
    ? 'down'
    : probe.temporal.up && probe.temporal.pollers > 0
      ? 'ok'
      : 'degraded';
  return {
    organizations,
    principals,
    keys,
    actions,
    deployments,
    sessions,
    ...usage,
    service_events: events,
    health,
    backends: {
      mongodb: probe.mongodb.up ? 'up' : 'down',
      temporal: probe.temporal.up ? 'up' : 'down',
      worker_pollers: probe.temporal.pollers,
    },
    generated_at: new Date(nowMs).toISOString(),
  };
}
