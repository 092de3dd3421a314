import { readFileSync, writeFileSync } from 'node:fs';
import { SpanKind } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { startTracing, type Tracing } from '../../src/observability/tracing';
import { proposeUpdate } from '../helpers/actions';
import { replayFailures } from '../helpers/replay';
import { workflowBundleCode } from '../test-env';
import { eventually } from '../helpers/eventually';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// One trace from an api request through Temporal into the workflow and the activity that
// executes the effect (docs/observability.md), against the real app, Temporal and worker,
// with the spans kept in memory instead of exported.
const exporter = new InMemorySpanExporter();

/**
 * interceptors-opentelemetry traces updates (the client's and the workflow's handler) from
 * 1.24 on; it matches the Temporal SDK's version, so with an older SDK the api's spans and the
 * activities' are checked, and the trace through Temporal waits for the SDK's upgrade.
 */
const TRACES_UPDATES = (() => {
  const manifest = require.resolve('@temporalio/interceptors-opentelemetry/package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  const [major, minor] = version.split('.').map(Number);
  return major > 1 || (major === 1 && minor >= 24);
})();
const withUpdates = TRACES_UPDATES ? it : it.skip;
let tracing: Tracing;
let app: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let approver: TestKey;
/** The actions whose workflows ran traced, for the replay check at the end. */
const tracedActions: string[] = [];

beforeAll(async () => {
  tracing = startTracing(
    {
      url: 'http://127.0.0.1:9/v1/traces',
      protocol: 'http/json',
      serviceName: 'governed-runtime-test',
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
    },
    { defaultServiceName: 'unused', spanProcessor: new SimpleSpanProcessor(exporter) },
  );
  app = await startTestApp('tracing', { tracing });
  worker = await startTestWorker(app.deps);
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [proposer, approver] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
  ]);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
  await tracing.shutdown();
});

const decide = (id: string, decision: string, body: Record<string, unknown> = {}) =>
  call<{ payload: { status: string } }>(app.url, 'POST', `/v1/external-actions/${id}/${decision}`, {
    key: approver.apiKey,
    body,
  });
const statusOf = async (id: string) =>
  (
    await call<{ payload: { status: string } }>(app.url, 'GET', `/v1/external-actions/${id}`, {
      key: approver.apiKey,
    })
  ).body.payload.status;

/** The server span of a request by its route, for one action. */
const serverSpan = (route: string, actionId: string): ReadableSpan | undefined =>
  exporter
    .getFinishedSpans()
    .find(
      (s) =>
        s.kind === SpanKind.SERVER &&
        s.attributes['http.route'] === route &&
        s.attributes['url.path'] === route.replace('{action_id}', actionId),
    );
const traceOf = (span: ReadableSpan): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === span.spanContext().traceId);
const named = (spans: ReadableSpan[], name: string): ReadableSpan[] =>
  spans.filter((s) => s.name === name);
const one = (spans: ReadableSpan[], name: string): ReadableSpan => {
  const found = named(spans, name);
  if (found.length !== 1) {
    throw new Error(
      `${found.length} spans named ${name} in ${spans.map((s) => s.name).join(', ')}`,
    );
  }
  return found[0];
};
const isChildOf = (child: ReadableSpan, parent: ReadableSpan): boolean =>
  child.parentSpanId === parent.spanContext().spanId;

/** The action of the first test: approved, then executed by itself (its rule says so). */
let autoExecuted: string;
const approveRoute = '/v1/external-actions/{action_id}/approve';

describe('an approval that executes the action by itself', () => {
  it('is a server span named by its route, with its MongoDB commands as children', async () => {
    const context = `ctx-trace-${Date.now()}`;
    const rule = await call(app.url, 'POST', '/v1/admin/approval-rules/create', {
      key: app.adminKey,
      body: { name: 'traced', match: { shared_context_id: context }, auto_execute: true },
    });
    expect(rule.status).toBe(201);
    autoExecuted = await proposeUpdate(app, proposer, {
      patch: { status: 'published' },
      shared_context_id: context,
      reason: 'publish',
    });
    tracedActions.push(autoExecuted);
    expect((await decide(autoExecuted, 'approve', { reason: 'fine' })).status).toBe(200);
    await eventually(
      () => statusOf(autoExecuted),
      (status) => status === 'executed',
    );

    const server = serverSpan(approveRoute, autoExecuted)!;
    expect(server.name).toBe(`POST ${approveRoute}`);
    expect(server.parentSpanId).toBeUndefined();
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': approveRoute,
      'http.response.status_code': 200,
      'url.scheme': 'http',
    });
    // The spans come from the client's connection class, not the driver's command events
    // (which parse every reply a second time: docs/observability.md, "Cost").
    expect(app.deps.mongo.options.monitorCommands).toBe(false);
    expect(app.deps.mongo.listenerCount('commandStarted')).toBe(0);
    // The request's own MongoDB commands are its children, named by operation and collection.
    const commands = traceOf(server).filter((s) => isChildOf(s, server));
    expect(commands.map((c) => c.name)).toEqual(
      expect.arrayContaining(['find api_keys', 'find external_actions']),
    );
    for (const command of commands.filter((c) => c.attributes['db.system'])) {
      expect(command.kind).toBe(SpanKind.CLIENT);
      expect(command.name).toBe(
        `${String(command.attributes['db.operation.name'])} ${String(command.attributes['db.collection.name'])}`,
      );
      expect(command.attributes).toMatchObject({
        'db.system': 'mongodb',
        'db.namespace': app.dbName,
        'server.address': '127.0.0.1',
      });
    }

    // The worker traces the execution's activity (executing, the effect, its outcome), with
    // the effect's writes below it.
    const effects = await eventually(
      async () => named(exporter.getFinishedSpans(), 'RunActivity:executeRecorded'),
      (found) => found.length > 0,
    );
    expect(effects).toHaveLength(1);
    const effect = effects[0];
    const writes = traceOf(effect).filter((s) => isChildOf(s, effect));
    expect(writes.map((w) => w.name)).toContain('update world_objects');
  });

  withUpdates(
    'runs in one trace from POST …/approve through the update handler to the effect',
    async () => {
      // The workflow's spans leave the sandbox at the end of its activations: wait for the effect's.
      const spans = await eventually(
        async () => traceOf(serverSpan(approveRoute, autoExecuted)!),
        (found) => named(found, 'RunActivity:executeRecorded').length === 1,
      );
      // TRACE_CAPTURE_FILE: where to write the trace for docs/images/render-trace.js.
      if (process.env['TRACE_CAPTURE_FILE']) {
        writeFileSync(
          process.env['TRACE_CAPTURE_FILE'],
          JSON.stringify(spans.map(captured), null, 1),
        );
      }
      const server = serverSpan(approveRoute, autoExecuted)!;
      const update = one(spans, 'StartWorkflowUpdate:approve');
      expect(isChildOf(update, server)).toBe(true);
      expect(update.attributes['temporalWorkflowId']).toBe(`action-${autoExecuted}`);
      const handler = one(spans, 'HandleUpdate:approve');
      expect(isChildOf(handler, update)).toBe(true);
      // The approval's record is the handler's work too (validators are not traced).
      expect(isChildOf(one(spans, 'StartActivity:recordActionTransitions'), handler)).toBe(true);
      expect(named(spans, 'ValidateUpdate:approve')).toEqual([]);
      const scheduled = one(spans, 'StartActivity:executeRecorded');
      expect(isChildOf(scheduled, handler)).toBe(true);
      const effect = one(spans, 'RunActivity:executeRecorded');
      expect(isChildOf(effect, scheduled)).toBe(true);
      expect(effect.attributes['temporalWorkflowId']).toBe(`action-${autoExecuted}`);
      expect(spans.some((s) => isChildOf(s, effect) && s.name === 'update world_objects')).toBe(
        true,
      );
      // Nothing of the proposal is in this trace: its workflow run belongs to the propose request.
      expect(named(spans, 'RunWorkflow:externalActionWorkflow')).toEqual([]);
    },
  );
});

describe('a trace of an approval followed by an execute', () => {
  withUpdates('puts the effect in the execute request’s trace, not the approval’s', async () => {
    const id = await proposeUpdate(app, proposer, { patch: { status: 'published' } });
    const plan = (
      await call<{ payload: { dry_run: { plan_digest: string } } }>(
        app.url,
        'GET',
        `/v1/external-actions/${id}`,
        { key: approver.apiKey },
      )
    ).body.payload.dry_run.plan_digest;
    tracedActions.push(id);
    expect((await decide(id, 'approve', { plan_digest: plan })).status).toBe(200);
    const executed = await decide(id, 'execute');
    expect(executed.status).toBe(200);
    expect(executed.body.payload.status).toBe('executed');

    const executeRoute = '/v1/external-actions/{action_id}/execute';
    const spans = await eventually(
      async () => {
        const server = serverSpan(executeRoute, id);
        return server ? traceOf(server) : [];
      },
      (found) => named(found, 'RunActivity:executeRecorded').length === 1,
    );
    const handler = one(spans, 'HandleUpdate:execute');
    expect(isChildOf(one(spans, 'StartActivity:executeRecorded'), handler)).toBe(true);

    const approval = traceOf(serverSpan('/v1/external-actions/{action_id}/approve', id)!);
    expect(named(approval, 'HandleUpdate:approve')).toHaveLength(1);
    expect(named(approval, 'StartActivity:executeRecorded')).toEqual([]);
  });
});

describe('the proposal’s trace', () => {
  withUpdates(
    'holds the workflow run the propose request started, under its update-with-start',
    async () => {
      const id = await proposeUpdate(app, proposer, { patch: { status: 'published' } });
      const route = '/v1/external-actions/propose';
      const server = await eventually(
        async () =>
          exporter
            .getFinishedSpans()
            .find(
              (s) =>
                s.kind === SpanKind.SERVER &&
                s.attributes['http.route'] === route &&
                traceOf(s).some((t) => t.attributes['temporalWorkflowId'] === `action-${id}`),
            ),
        (found) => found !== undefined,
      );
      const spans = traceOf(server!);
      const start = spans.find((s) => s.name.startsWith('UpdateWithStartWorkflow:'));
      expect(start && isChildOf(start, server!)).toBe(true);
      expect(named(spans, 'HandleUpdate:planSettled')).toHaveLength(1);
    },
  );
});

describe('a traced workflow’s history', () => {
  withUpdates('replays against the same bundle (trace headers change no command)', async () => {
    expect(tracedActions).toHaveLength(2);
    const client = await app.deps.temporal.getClient();
    const histories = await Promise.all(
      tracedActions.map(async (id) => ({
        file: id,
        workflowType: 'externalActionWorkflow',
        history: await client.workflow.getHandle(`action-${id}`).fetchHistory(),
      })),
    );
    expect(await replayFailures(workflowBundleCode(), histories)).toEqual([]);
  });
});

/** What docs/images/render-trace.js draws: names, parents, times, kinds, a few attributes. */
function captured(span: ReadableSpan) {
  const ms = ([s, ns]: [number, number]) => s * 1000 + ns / 1e6;
  return {
    name: span.name,
    span_id: span.spanContext().spanId,
    parent_span_id: span.parentSpanId ?? null,
    kind: SpanKind[span.kind],
    scope: span.instrumentationLibrary.name,
    start_ms: ms(span.startTime),
    end_ms: ms(span.endTime),
    attributes: span.attributes,
  };
}
