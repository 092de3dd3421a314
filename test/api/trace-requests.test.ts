import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import Koa from 'koa';
import { traceRequests } from '../../src/api/middleware/trace-requests';
import { startTracing, type Tracing } from '../../src/observability/tracing';

// The api's server span (docs/observability.md), on a bare Koa app: the route table's
// template names it, a traceparent continues the caller's trace, a 5xx is an error.
const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let server: Server;
let url: string;
let innerTraceId: string | undefined;

beforeAll(async () => {
  tracing = startTracing(
    {
      url: 'http://127.0.0.1:9/v1/traces',
      protocol: 'http/protobuf',
      serviceName: undefined,
      sampler: 'always_on',
      samplerRatio: 1,
    },
    { defaultServiceName: 'test', spanProcessor: new SimpleSpanProcessor(exporter) },
  );
  const app = new Koa();
  app.use(traceRequests(tracing.tracer));
  app.use(async (ctx) => {
    // What the route chain's `describe` step does for a matched route.
    if (ctx.path.startsWith('/v1/things/')) ctx.state.route = { path: '/v1/things/{thing_id}' };
    await new Promise((resolve) => setTimeout(resolve, 1));
    innerTraceId = trace.getSpan(context.active())?.spanContext().traceId;
    if (ctx.path.endsWith('/broken')) ctx.status = 503;
    else if (ctx.state.route) ctx.body = { ok: true };
  });
  const handle = app.callback();
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await tracing.shutdown();
});
beforeEach(() => exporter.reset());

const onlySpan = () => {
  const spans = exporter.getFinishedSpans();
  expect(spans).toHaveLength(1);
  return spans[0];
};

describe('traceRequests', () => {
  it('names a matched request by its route template, never its path', async () => {
    const res = await fetch(`${url}/v1/things/thg_123?x=1`, { headers: { 'user-agent': 'probe' } });
    expect(res.status).toBe(200);
    const span = onlySpan();
    expect(span.name).toBe('GET /v1/things/{thing_id}');
    expect(span.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/v1/things/{thing_id}',
      'url.path': '/v1/things/thg_123',
      'url.scheme': 'http',
      'server.address': '127.0.0.1',
      'http.response.status_code': 200,
      'user_agent.original': 'probe',
      'network.protocol.version': '1.1',
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    // Code inside the request runs in the span's context.
    expect(innerTraceId).toBe(span.spanContext().traceId);
  });

  it('names an unmatched request by its method only, without http.route', async () => {
    expect((await fetch(`${url}/nowhere/abc`)).status).toBe(404);
    const span = onlySpan();
    expect(span.name).toBe('GET');
    expect(span.attributes['http.route']).toBeUndefined();
    expect(span.attributes['http.response.status_code']).toBe(404);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('continues the trace of a traceparent header', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await fetch(`${url}/v1/things/thg_1`, {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    const span = onlySpan();
    expect(span.spanContext().traceId).toBe(traceId);
    expect(span.parentSpanId).toBe('00f067aa0ba902b7');
  });

  it('marks a 5xx answer as an error', async () => {
    expect((await fetch(`${url}/v1/things/thg_1/broken`)).status).toBe(503);
    const span = onlySpan();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toBe('503');
  });
});
