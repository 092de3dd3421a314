/**
 * A workflow history, as `historyToJSON` writes it (and as test/workflows/histories/captured
 * stores them): event types spelled `EVENT_TYPE_…`, payload data in base64.
 */
export interface HistoryJson {
  events: HistoryEventJson[];
}
export interface HistoryEventJson {
  eventId: string;
  eventTime: string;
  eventType: string;
  [attributes: string]: unknown;
}

/** What one workflow execution cost the Temporal server and the worker, by its history. */
export interface HistoryBudget {
  /** Events by type (`WorkflowTaskCompleted`, …). */
  events: Record<string, number>;
  /** Workflow tasks completed: the activations the worker ran and the server recorded. */
  activations: number;
  /** Activities scheduled (regular: a task of their own through the server), by type. */
  activities: Record<string, number>;
  /** Local activities recorded (a marker each, run inside a workflow task), by type. */
  localActivities: Record<string, number>;
  /** Updates accepted, by name; signals received, by name. */
  updates: Record<string, number>;
  signals: Record<string, number>;
  /** Workflow tasks: ms from scheduled to started (in the queue) and started to completed. */
  taskWaitMs: number;
  taskRunMs: number;
}

/** `EVENT_TYPE_WORKFLOW_TASK_COMPLETED` → `WorkflowTaskCompleted`. */
export function eventTypeName(eventType: string): string {
  return eventType
    .replace(/^EVENT_TYPE_/, '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_m, _sep, letter: string) => letter.toUpperCase());
}

/** The budget of one history. */
export function historyBudget(history: HistoryJson): HistoryBudget {
  const budget: HistoryBudget = {
    events: {},
    activations: 0,
    activities: {},
    localActivities: {},
    updates: {},
    signals: {},
    taskWaitMs: 0,
    taskRunMs: 0,
  };
  const times = new Map<string, number>();
  for (const event of history.events) {
    const type = eventTypeName(event.eventType);
    const at = timeOf(event.eventTime);
    times.set(String(event.eventId), at);
    increment(budget.events, type);
    const attributes = (event[`${type.charAt(0).toLowerCase()}${type.slice(1)}EventAttributes`] ??
      {}) as Record<string, unknown>;
    switch (type) {
      case 'WorkflowTaskStarted':
        budget.taskWaitMs += at - (times.get(String(attributes['scheduledEventId'])) ?? at);
        break;
      case 'WorkflowTaskCompleted':
        budget.activations += 1;
        budget.taskRunMs += at - (times.get(String(attributes['startedEventId'])) ?? at);
        break;
      case 'ActivityTaskScheduled':
        increment(budget.activities, nameOf(attributes['activityType']));
        break;
      case 'MarkerRecorded':
        if (attributes['markerName'] === 'core_local_activity') {
          increment(budget.localActivities, localActivityType(attributes));
        }
        break;
      case 'WorkflowExecutionUpdateAccepted': {
        const request = attributes['acceptedRequest'] as { input?: { name?: string } } | undefined;
        increment(budget.updates, request?.input?.name ?? 'unknown');
        break;
      }
      case 'WorkflowExecutionSignaled':
        increment(budget.signals, (attributes['signalName'] as string | undefined) ?? 'unknown');
        break;
    }
  }
  return budget;
}

/** The local activity's type, from the marker's `data` payload (the SDK's JSON of it). */
function localActivityType(attributes: Record<string, unknown>): string {
  try {
    const details = attributes['details'] as Record<string, { payloads?: { data?: string }[] }>;
    const data = details['data']?.payloads?.[0]?.data;
    if (!data) return 'unknown';
    const marker = JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as {
      activity_type?: string;
    };
    return marker.activity_type ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

const nameOf = (value: unknown): string =>
  String((value as { name?: string } | undefined)?.name ?? 'unknown');

function increment(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** An RFC 3339 time with up to nanoseconds, as epoch ms (microsecond precision). */
function timeOf(text: string): number {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(text);
  if (!match) return Date.parse(text);
  return Date.parse(`${match[1]}Z`) + Number(`0.${match[2] ?? '0'}`) * 1000;
}

/** The mean budget of several executions (of one workflow type, one path). */
export function meanBudget(budgets: readonly HistoryBudget[]): HistoryBudget {
  const n = Math.max(1, budgets.length);
  const meanOf = (pick: (b: HistoryBudget) => Record<string, number>) => {
    const out: Record<string, number> = {};
    for (const b of budgets)
      for (const [k, v] of Object.entries(pick(b))) out[k] = (out[k] ?? 0) + v;
    return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, round(v / n)]));
  };
  const total = (pick: (b: HistoryBudget) => number) =>
    round(budgets.reduce((s, b) => s + pick(b), 0) / n);
  return {
    events: meanOf((b) => b.events),
    activations: total((b) => b.activations),
    activities: meanOf((b) => b.activities),
    localActivities: meanOf((b) => b.localActivities),
    updates: meanOf((b) => b.updates),
    signals: meanOf((b) => b.signals),
    taskWaitMs: total((b) => b.taskWaitMs),
    taskRunMs: total((b) => b.taskRunMs),
  };
}

type Side = { ours: number; bare: number };

/** History events by type, ours beside bare, most of ours first, after the total. */
export function eventRows(ours: HistoryBudget, bare: HistoryBudget): Record<string, Side> {
  const rows: Record<string, Side> = {
    'history events': { ours: sumOf(ours.events), bare: sumOf(bare.events) },
  };
  for (const type of keysByCount(ours.events, bare.events)) {
    rows[type] = { ours: ours.events[type] ?? 0, bare: bare.events[type] ?? 0 };
  }
  return rows;
}

/** Activations, activities, local activities, updates and signals, ours beside bare. */
export function workRows(ours: HistoryBudget, bare: HistoryBudget): Record<string, Side> {
  const rows: Record<string, Side> = {
    'workflow tasks (activations)': { ours: ours.activations, bare: bare.activations },
    'workflow task queue wait ms (sum)': { ours: ours.taskWaitMs, bare: bare.taskWaitMs },
    'workflow task run ms (sum)': { ours: ours.taskRunMs, bare: bare.taskRunMs },
  };
  const add = (
    label: string,
    plural: string,
    pick: (b: HistoryBudget) => Record<string, number>,
  ) => {
    rows[plural] = { ours: sumOf(pick(ours)), bare: sumOf(pick(bare)) };
    for (const name of keysByCount(pick(ours), pick(bare))) {
      rows[`${label} ${name}`] = { ours: pick(ours)[name] ?? 0, bare: pick(bare)[name] ?? 0 };
    }
  };
  add('activity', 'activities (regular)', (b) => b.activities);
  add('local activity', 'local activities', (b) => b.localActivities);
  // Markers that are not local activities: `patched()` calls (`core_patch`), mostly.
  const otherMarkers = (b: HistoryBudget) =>
    round((b.events['MarkerRecorded'] ?? 0) - sumOf(b.localActivities));
  rows['other markers (patches)'] = { ours: otherMarkers(ours), bare: otherMarkers(bare) };
  add('update', 'updates', (b) => b.updates);
  if (sumOf(ours.signals) + sumOf(bare.signals) > 0) add('signal', 'signals', (b) => b.signals);
  return rows;
}

function keysByCount(ours: Record<string, number>, bare: Record<string, number>): string[] {
  return [...new Set([...Object.keys(ours), ...Object.keys(bare)])].sort(
    (a, b) =>
      (ours[b] ?? 0) - (ours[a] ?? 0) || (bare[b] ?? 0) - (bare[a] ?? 0) || a.localeCompare(b),
  );
}

const sumOf = (counts: Record<string, number>): number =>
  round(Object.values(counts).reduce((s, v) => s + v, 0));
const round = (value: number): number => Math.round(value * 10) / 10;

/**
 * An action's mean end-to-end time (client side, traces off) split by its history: its
 * workflow tasks' time in the queue (scheduled → started) and running (started → completed,
 * local activities included), and the rest (the api's own work and store commands, the
 * Temporal server's handling of the start, the updates, activity tasks and completions, HTTP).
 * Approximate: an action driven by one request at a time waits on each of its workflow tasks.
 */
export function actionTimeRows(
  ours: { wallMs: readonly number[]; history: HistoryBudget },
  bare: { wallMs: readonly number[]; history: HistoryBudget },
): Record<string, Side> {
  const mean = (values: readonly number[]) =>
    round(values.reduce((s, v) => s + v, 0) / Math.max(1, values.length));
  const side = (pick: (s: typeof ours) => number): Side => ({ ours: pick(ours), bare: pick(bare) });
  return {
    'end-to-end, mean (client, traces off)': side((s) => mean(s.wallMs)),
    'workflow tasks in the queue (scheduled → started)': side((s) => s.history.taskWaitMs),
    'workflow tasks running (started → completed, local activities included)': side(
      (s) => s.history.taskRunMs,
    ),
    'the rest: api, Temporal server (start, updates, activity tasks), HTTP': side((s) =>
      round(mean(s.wallMs) - s.history.taskWaitMs - s.history.taskRunMs),
    ),
  };
}
