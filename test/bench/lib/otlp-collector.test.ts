import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { hrTimeToMicroseconds } from '@opentelemetry/core';
import { Resource } from '@opentelemetry/resources';
import { SpanKind, context, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { startOtlpCollector, type OtlpCollector } from '../../../bench/lib/otlp-collector';
import { exportSpans } from '../../helpers/otlp-export';

// The budget's receiver parses what the real OTLP/JSON exporter sends: every span with its
// parent, kind, service, times and attributes, whatever the body's compression.
let collector: OtlpCollector;
let spans: ReadableSpan[];
beforeAll(async () => {
  collector = await startOtlpCollector();
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: new Resource({ 'service.name': 'governed-runtime-api' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('collector-test');
  for (let i = 0; i < 3; i += 1) {
    const parent = tracer.startSpan(`POST /v1/things/${i}`, { kind: SpanKind.SERVER });
    const child = tracer.startSpan(
      'find things',
      {
        kind: SpanKind.CLIENT,
        attributes: { 'db.system': 'mongodb', 'server.port': 27017, ok: true, ratio: 0.5 },
      },
      trace.setSpan(context.active(), parent),
    );
    child.end();
    parent.end();
  }
  spans = memory.getFinishedSpans();
  await provider.shutdown();
});
afterAll(() => collector.stop());

const exported = (exporter: SpanExporter) => exportSpans(exporter, spans);

describe('the OTLP collector', () => {
  it.each([
    ['plain', () => new OtlpJsonExporter({ url: `${collector.url}/v1/traces` })],
    [
      'gzip',
      // `CompressionAlgorithm.GZIP` of otlp-exporter-base, a package not depended on directly.
      () =>
        new OtlpJsonExporter({ url: `${collector.url}/v1/traces`, compression: 'gzip' as never }),
    ],
  ])('parses every span of an http/json export (%s)', async (_compression, make) => {
    const before = collector.spans.length;
    const exporter = make();
    await exported(exporter);
    await exporter.shutdown();
    const received = collector.spans.slice(before);
    expect(received).toHaveLength(spans.length);
    for (const sent of spans) {
      const got = received.find((s) => s.spanId === sent.spanContext().spanId)!;
      expect(got).toBeDefined();
      expect(got.traceId).toBe(sent.spanContext().traceId);
      expect(got.parentSpanId).toBe(sent.parentSpanId);
      expect(got.name).toBe(sent.name);
      expect(got.service).toBe('governed-runtime-api');
      // OTLP numbers kinds from 1 (internal); the API's enum from 0.
      expect(got.kind).toBe(sent.kind + 1);
      expect(got.startMs).toBeCloseTo(hrTimeToMicroseconds(sent.startTime) / 1000, 2);
      expect(got.endMs).toBeCloseTo(hrTimeToMicroseconds(sent.endTime) / 1000, 2);
    }
    const child = received.find((s) => s.name === 'find things')!;
    expect(child.attributes).toEqual({
      'db.system': 'mongodb',
      'server.port': 27017,
      ok: true,
      ratio: 0.5,
    });
    expect(received.filter((s) => s.parentSpanId === undefined)).toHaveLength(3);
  });

  it('counts a protobuf export as unreadable rather than misreading it', async () => {
    const before = { spans: collector.spans.length, unreadable: collector.unreadable };
    const exporter = new OtlpProtobufExporter({ url: `${collector.url}/v1/traces` });
    await exported(exporter);
    await exporter.shutdown();
    expect(collector.spans.length).toBe(before.spans);
    expect(collector.unreadable).toBe(before.unreadable + 1);
  });
});
