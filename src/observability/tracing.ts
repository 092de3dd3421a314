import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { Sampler, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { API_VERSION } from '../lib/version';
import type { TracingConfig } from './tracing-config';
import { loadTracingSdk, type TracingSdk } from './tracing-sdk';

/** A started tracer provider: what the api, the Temporal interceptors and the worker use. */
export interface Tracing {
  tracer: Tracer;
  /** Where ended spans go; the worker hands it the workflows' spans too (their sink). */
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** Exports what is buffered, then stops and unregisters the provider. */
  shutdown(): Promise<void>;
}

export interface StartTracingOptions {
  /** The process's name when `OTEL_SERVICE_NAME` is unset. */
  defaultServiceName: string;
  /** Instead of the OTLP exporter of the configuration (tests: an in-memory exporter). */
  spanProcessor?: SpanProcessor;
}

/**
 * Starts tracing for one process. The OpenTelemetry API keeps the provider, the context
 * manager (AsyncLocalStorage) and the W3C propagator in its process-wide registry: that
 * registry is the one global this service accepts, because the Temporal interceptors and any
 * library instrumentation find the tracer there. Everything else is passed explicitly
 * (the app context holds the returned `Tracing`). Nothing calls this when traces are off.
 */
export function startTracing(config: TracingConfig, options: StartTracingOptions): Tracing {
  const sdk = loadTracingSdk();
  const { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } = sdk.semanticConventions;
  const resource = new sdk.resources.Resource({
    [ATTR_SERVICE_NAME]: config.serviceName ?? options.defaultServiceName,
    [ATTR_SERVICE_VERSION]: API_VERSION,
  });
  const spanProcessor =
    options.spanProcessor ??
    new sdk.sdkTraceBase.BatchSpanProcessor(exporterOf(sdk, config), { maxQueueSize: 4096 });
  const provider = new sdk.sdkTraceNode.NodeTracerProvider({
    resource,
    sampler: samplerOf(sdk, config),
    spanProcessors: [spanProcessor],
  });
  provider.register();
  return {
    tracer: provider.getTracer('governed-runtime', API_VERSION),
    spanProcessor,
    resource,
    async shutdown() {
      await provider.shutdown();
      // Leave the registry as it was before the start, so a later start registers afresh.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

function exporterOf(sdk: TracingSdk, config: TracingConfig): SpanExporter {
  return config.protocol === 'http/json'
    ? new sdk.otlpHttp.OTLPTraceExporter({ url: config.url })
    : new sdk.otlpProto.OTLPTraceExporter({ url: config.url });
}

function samplerOf(sdk: TracingSdk, config: TracingConfig): Sampler {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } =
    sdk.sdkTraceBase;
  const ratio = new TraceIdRatioBasedSampler(config.samplerRatio);
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
