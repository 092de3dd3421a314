import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { proposeUpdate } from '../helpers/actions';
import { createTestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Without OTEL_* variables nothing of OpenTelemetry is set up (docs/observability.md): no
// provider in the API's registry, no command monitoring, no Temporal interceptor, no sink.
let app: TestApp;
let worker: TestWorker;
beforeAll(async () => {
  app = await startTestApp('tracing-off');
  worker = await startTestWorker(app.deps);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

describe('with no OTEL_* variables', () => {
  it('sets nothing up in the api or the worker, and requests still work', async () => {
    expect(app.deps.config.tracing).toBeUndefined();
    expect(app.deps.tracing).toBeUndefined();
    // A full request path runs (propose starts the workflow, the worker plans it).
    const proposer = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
    await proposeUpdate(app, proposer, { patch: { status: 'published' } });

    // The API's registry holds no provider: spans are non-recording no-ops.
    const span = trace.getTracer('probe').startSpan('probe');
    expect(span.isRecording()).toBe(false);
    expect(trace.getSpan(context.active())).toBeUndefined();
    // No context manager either (so no AsyncLocalStorage and no promise hook of OpenTelemetry's):
    // a context entered is not even seen inside its own callback.
    const entered = trace.setSpan(ROOT_CONTEXT, span);
    expect(context.with(entered, () => context.active())).toBe(ROOT_CONTEXT);
    // The driver emits no command events and nobody listens for them.
    expect(app.deps.mongo.options.monitorCommands).toBe(false);
    expect(app.deps.mongo.listenerCount('commandStarted')).toBe(0);
    // The api's Temporal client has no interceptor.
    const client = await app.deps.temporal.getClient();
    expect(client.options.interceptors.workflow ?? []).toEqual([]);
    // The worker has no activity interceptor and no span sink.
    const options = worker.worker.options;
    expect(options.interceptors.activity ?? []).toEqual([]);
    expect(Object.keys(options.sinks ?? {})).not.toContain('exporter');
  });
});
