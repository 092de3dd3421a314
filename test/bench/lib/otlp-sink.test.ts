import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { startOtlpSink, type OtlpSink } from '../../../bench/lib/otlp-sink';
import { exportSpans } from '../../helpers/otlp-export';

// The tracing bench's receiver counts spans without parsing bodies: it must count what the
// real exporters send, in both protocols, exactly.
let sink: OtlpSink;
let spans: ReadableSpan[];
beforeAll(async () => {
  sink = await startOtlpSink();
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('sink-test');
  for (let i = 0; i < 37; i += 1) {
    const parent = tracer.startSpan(`parent ${i}`, { attributes: { 'url.path': '/x"spanId"' } });
    parent.end();
    tracer.startSpan('other scope').end();
  }
  spans = memory.getFinishedSpans();
  await provider.shutdown();
});
afterAll(() => sink.stop());

const exported = (exporter: SpanExporter) => exportSpans(exporter, spans);

describe('the OTLP sink', () => {
  it.each([
    ['http/json', () => new OtlpJsonExporter({ url: `${sink.url}/v1/traces` })],
    ['http/protobuf', () => new OtlpProtobufExporter({ url: `${sink.url}/v1/traces` })],
  ])('counts every span of an %s export', async (_protocol, make) => {
    const before = { spans: sink.spans, requests: sink.requests };
    const exporter = make();
    await exported(exporter);
    await exporter.shutdown();
    expect(sink.spans - before.spans).toBe(spans.length);
    expect(sink.requests - before.requests).toBe(1);
  });
});
