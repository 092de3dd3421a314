import {
  eventRows,
  eventTypeName,
  historyBudget,
  meanBudget,
  actionTimeRows,
  workRows,
  type HistoryEventJson,
} from '../../../bench/lib/budget-history';
import {
  addedRows,
  budgetTable,
  criticalPath,
  mongoSummary,
  stepRows,
  tracesOf,
} from '../../../bench/lib/budget-spans';
import type { CollectedSpan } from '../../../bench/lib/otlp-collector';

/** A span of trace `t`, from `startMs` to `endMs` after 1,000,000 ms. */
function span(
  t: string,
  id: string,
  parent: string | undefined,
  name: string,
  times: [number, number],
  extra: Partial<CollectedSpan> = {},
): CollectedSpan {
  return {
    traceId: t,
    spanId: `${t}-${id}`,
    ...(parent ? { parentSpanId: `${t}-${parent}` } : {}),
    name,
    kind: 1,
    service: 'governed-runtime-api',
    startMs: 1_000_000 + times[0],
    endMs: 1_000_000 + times[1],
    attributes: {},
    ...extra,
  };
}
const mongo = (collection: string, operation: string, service = 'governed-runtime-api') => ({
  kind: 3,
  service,
  attributes: {
    'db.system': 'mongodb',
    'db.operation.name': operation,
    'db.collection.name': collection,
  },
});
const worker = { service: 'governed-runtime-worker' };

/**
 * One approve request: a read, the update's round trip through Temporal (a workflow span in
 * workflow time, under it a local activity with two overlapping writes), a write that outlives
 * the response, and one the request never waits for.
 */
function approveTrace(t: string): CollectedSpan[] {
  return [
    span(t, 'R', undefined, 'POST /v1/external-actions/{action_id}/approve', [0, 100], {
      kind: 2,
    }),
    span(t, 'M1', 'R', 'find external_actions', [2, 5], mongo('external_actions', 'find')),
    span(t, 'T', 'R', 'StartWorkflowUpdate:approve', [10, 90], {
      attributes: { temporalWorkflowId: 'action-1' },
    }),
    span(t, 'W', 'T', 'HandleUpdate:approve', [5, 6], {
      ...worker,
      attributes: { workflowType: 'externalActionWorkflow', workflowId: 'action-1' },
    }),
    span(t, 'A', 'W', 'RunActivity:recordActionTransitions', [20, 40], {
      ...worker,
      attributes: { temporalWorkflowId: 'action-1' },
    }),
    span(
      t,
      'M2',
      'A',
      'insert action_ledger',
      [22, 30],
      mongo('action_ledger', 'insert', worker.service),
    ),
    span(
      t,
      'M3',
      'A',
      'update external_actions',
      [25, 35],
      mongo('external_actions', 'update', worker.service),
    ),
    span(t, 'M4', 'R', 'insert request_ledger', [95, 120], mongo('request_ledger', 'insert')),
    span(t, 'L', 'R', 'insert late', [130, 140], mongo('late', 'insert')),
  ];
}

describe('the budget tables of spans', () => {
  const spans = [
    ...approveTrace('a'),
    ...approveTrace('b'),
    span('c', 'X', 'gone', 'orphan', [0, 1]),
  ];

  it('groups spans by trace and counts traces whose root never came', () => {
    const { traces, orphans } = tracesOf(spans);
    expect(traces.map((t) => t.root.spanId).sort()).toEqual(['a-R', 'b-R']);
    expect(traces[0].spans).toHaveLength(9);
    expect(orphans).toBe(1);
  });

  it('shares the root duration along the critical path, through workflow spans', () => {
    const [trace] = tracesOf(approveTrace('a')).traces;
    const shares = new Map([...criticalPath(trace)].map(([s, ms]) => [s.spanId.slice(2), ms]));
    expect(Object.fromEntries(shares)).toEqual({
      R: 12, // 0–2, 5–10, 90–95
      M1: 3,
      T: 60, // 10–20, 40–90: waiting on Temporal beyond the activity
      A: 7, // 20–22, 35–40
      M2: 3, // 22–25 (the rest overlaps M3, which ended later)
      M3: 10,
      M4: 5, // clipped to the response's end
    });
    expect([...shares.values()].reduce((a, b) => a + b, 0)).toBe(100);
  });

  it('makes one row per process and step, per unit, most critical-path time first', () => {
    const { traces } = tracesOf(spans);
    const rows = stepRows(traces);
    // Ties on the path go to the longer spans (the ledger's insert: 8 ms; the find: 3 ms).
    expect(rows.map((r) => [r.process, r.step, r.count, r.pathMs])).toEqual([
      ['api', 'temporal StartWorkflowUpdate:approve', 2, 120],
      ['api', 'http POST /v1/external-actions/{action_id}/approve', 2, 24],
      ['worker', 'mongo update external_actions', 2, 20],
      ['worker', 'RunActivity:recordActionTransitions', 2, 14],
      ['api', 'mongo insert request_ledger', 2, 10],
      ['worker', 'mongo insert action_ledger', 2, 6],
      ['api', 'mongo find external_actions', 2, 6],
      ['api', 'mongo insert late', 2, 0],
      ['workflow', 'HandleUpdate:approve', 2, 0],
    ]);
    const table = budgetTable(rows, 2, 3);
    expect(Object.keys(table)).toEqual([
      'temporal StartWorkflowUpdate:approve',
      'http POST /v1/external-actions/{action_id}/approve',
      'mongo update external_actions',
      'other (6 steps)',
      'total',
    ]);
    expect(table['temporal StartWorkflowUpdate:approve']).toEqual({
      process: 'api',
      count: 1,
      pathMs: 60,
      spanMs: 80,
      msEach: 80,
    });
    expect(table['other (6 steps)']).toEqual({
      process: 'worker+api+workflow',
      count: 6,
      pathMs: 18,
      spanMs: 20 + 25 + 3 + 8 + 10 + 1,
      msEach: 11.17,
    });
    expect(table['total']).toMatchObject({ count: 9, pathMs: 100 });
    expect(mongoSummary(rows, 2)).toEqual({ mongo_api: 3, mongo_worker: 2, mongoPathMs: 21 });
  });
});

describe('the steps a second run added to', () => {
  it('orders the steps by the span ms per unit they added', () => {
    const row = (step: string, count: number, spanMs: number) => ({
      process: 'worker',
      step,
      count,
      spanMs,
      pathMs: 0,
    });
    const before = [row('mongo find a', 10, 10), row('mongo insert b', 10, 20)];
    const after = [
      row('mongo find a', 20, 200),
      row('mongo insert b', 20, 40),
      row('mongo find c', 2, 8),
    ];
    expect(addedRows(before, 10, after, 20, 2)).toEqual({
      'mongo find a': { process: 'worker', count: 1, msEachBefore: 1, msEachAfter: 10, addedMs: 9 },
      'mongo find c': {
        process: 'worker',
        count: 0.1,
        msEachBefore: '',
        msEachAfter: 4,
        addedMs: 0.4,
      },
    });
  });
});

/** An event of a fixed history, `ms` after 10:00:00 UTC. */
function event(id: number, type: string, ms: number, attributes: object = {}): HistoryEventJson {
  const key = `${eventTypeName(type).charAt(0).toLowerCase()}${eventTypeName(type).slice(1)}EventAttributes`;
  const at = new Date(Date.UTC(2026, 10, 28, 10, 0, 0) + Math.floor(ms)).toISOString();
  const nanos = String(Math.round((ms % 1) * 1e6)).padStart(6, '0');
  return {
    eventId: String(id),
    eventTime: at.replace('Z', `${nanos}Z`),
    eventType: `EVENT_TYPE_${type}`,
    [key]: attributes,
  };
}
const marker = (activityType: string) => ({
  markerName: 'core_local_activity',
  details: {
    data: {
      payloads: [
        {
          data: Buffer.from(JSON.stringify({ seq: 1, activity_type: activityType })).toString(
            'base64',
          ),
        },
      ],
    },
  },
});

describe('the budget of a history', () => {
  const ours = {
    events: [
      event(1, 'WORKFLOW_EXECUTION_STARTED', 0),
      event(2, 'WORKFLOW_TASK_SCHEDULED', 0),
      event(3, 'WORKFLOW_TASK_STARTED', 4.5, { scheduledEventId: '2' }),
      event(4, 'WORKFLOW_TASK_COMPLETED', 24.5, { scheduledEventId: '2', startedEventId: '3' }),
      event(5, 'MARKER_RECORDED', 24.5, marker('openActionProposal')),
      event(6, 'MARKER_RECORDED', 24.5, marker('recordActionTransitions')),
      event(7, 'MARKER_RECORDED', 24.5, { markerName: 'core_patch', details: {} }),
      event(8, 'WORKFLOW_EXECUTION_UPDATE_ACCEPTED', 24.5, {
        acceptedRequest: { input: { name: 'approve' } },
      }),
      event(9, 'WORKFLOW_EXECUTION_SIGNALED', 30, { signalName: 'nudge' }),
      event(10, 'WORKFLOW_TASK_SCHEDULED', 30),
      event(11, 'WORKFLOW_TASK_STARTED', 32, { scheduledEventId: '10' }),
      event(12, 'WORKFLOW_TASK_COMPLETED', 40, { scheduledEventId: '10', startedEventId: '11' }),
      event(13, 'MARKER_RECORDED', 40, marker('recordActionTransitions')),
      event(14, 'ACTIVITY_TASK_SCHEDULED', 40, { activityType: { name: 'postWebhook' } }),
      event(15, 'WORKFLOW_EXECUTION_COMPLETED', 50),
    ],
  };
  const bare = {
    events: [
      event(1, 'WORKFLOW_EXECUTION_STARTED', 0),
      event(2, 'WORKFLOW_TASK_SCHEDULED', 0),
      event(3, 'WORKFLOW_TASK_STARTED', 1, { scheduledEventId: '2' }),
      event(4, 'WORKFLOW_TASK_COMPLETED', 6, { scheduledEventId: '2', startedEventId: '3' }),
      event(5, 'ACTIVITY_TASK_SCHEDULED', 6, { activityType: { name: 'applyEffect' } }),
      event(6, 'WORKFLOW_EXECUTION_COMPLETED', 9),
    ],
  };

  it('counts events by type, activations, activities, local activities, updates and signals', () => {
    expect(eventTypeName('EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED')).toBe(
      'WorkflowExecutionUpdateAccepted',
    );
    const budget = historyBudget(ours);
    expect(budget.events).toEqual({
      WorkflowExecutionStarted: 1,
      WorkflowTaskScheduled: 2,
      WorkflowTaskStarted: 2,
      WorkflowTaskCompleted: 2,
      MarkerRecorded: 4,
      WorkflowExecutionUpdateAccepted: 1,
      WorkflowExecutionSignaled: 1,
      ActivityTaskScheduled: 1,
      WorkflowExecutionCompleted: 1,
    });
    expect(budget.activations).toBe(2);
    expect(budget.localActivities).toEqual({ openActionProposal: 1, recordActionTransitions: 2 });
    expect(budget.activities).toEqual({ postWebhook: 1 });
    expect(budget.updates).toEqual({ approve: 1 });
    expect(budget.signals).toEqual({ nudge: 1 });
    expect(budget.taskWaitMs).toBeCloseTo(6.5, 6); // 4.5 + 2
    expect(budget.taskRunMs).toBeCloseTo(28, 6); // 20 + 8
  });

  it('sets ours beside bare, per execution', () => {
    const o = meanBudget([historyBudget(ours), historyBudget(ours)]);
    const b = meanBudget([historyBudget(bare)]);
    const events = eventRows(o, b);
    expect(Object.keys(events).slice(0, 3)).toEqual([
      'history events',
      'MarkerRecorded',
      'WorkflowTaskCompleted',
    ]);
    expect(events['history events']).toEqual({ ours: 15, bare: 6 });
    expect(events['ActivityTaskScheduled']).toEqual({ ours: 1, bare: 1 });
    const work = workRows(o, b);
    expect(work['workflow tasks (activations)']).toEqual({ ours: 2, bare: 1 });
    expect(work['local activities']).toEqual({ ours: 3, bare: 0 });
    expect(work['local activity recordActionTransitions']).toEqual({ ours: 2, bare: 0 });
    expect(work['other markers (patches)']).toEqual({ ours: 1, bare: 0 });
    expect(work['activity applyEffect']).toEqual({ ours: 0, bare: 1 });
    expect(work['signal nudge']).toEqual({ ours: 1, bare: 0 });
    // 100 ms end to end; the tasks waited 6.5 ms in the queue and ran 28 ms (bare: 1, 5).
    const times = actionTimeRows(
      { wallMs: [90, 110], history: o },
      { wallMs: [20, 30, 40], history: b },
    );
    expect(Object.values(times)).toEqual([
      { ours: 100, bare: 30 },
      { ours: 6.5, bare: 1 },
      { ours: 28, bare: 5 },
      { ours: 65.5, bare: 24 },
    ]);
  });
});
