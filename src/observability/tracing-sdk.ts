import type * as ExporterOtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as ExporterOtlpProto from '@opentelemetry/exporter-trace-otlp-proto';
import type * as Resources from '@opentelemetry/resources';
import type * as SdkTraceBase from '@opentelemetry/sdk-trace-base';
import type * as SdkTraceNode from '@opentelemetry/sdk-trace-node';
import type * as SemanticConventions from '@opentelemetry/semantic-conventions';
import type * as TemporalInterceptors from '@temporalio/interceptors-opentelemetry';

/** The OpenTelemetry SDK parts `startTracing` builds a provider from. */
export interface TracingSdk {
  sdkTraceBase: typeof SdkTraceBase;
  sdkTraceNode: typeof SdkTraceNode;
  resources: typeof Resources;
  semanticConventions: typeof SemanticConventions;
  otlpHttp: typeof ExporterOtlpHttp;
  otlpProto: typeof ExporterOtlpProto;
}

/**
 * Loads the OpenTelemetry SDK and both OTLP exporters, when traces are started and not
 * before. Imported statically they were loaded by every api and worker process with traces
 * off (the default): 349 modules, 4.4 MiB of live heap, 12 MiB of RSS and 0.2 s of CPU at
 * start, for nothing (bench/results/foundation-attribution.md).
 *
 * Why `require` here although `src` forbids `import()`: that rule keeps dependencies
 * visible to the layer check, and a `require` of a literal package name stays visible to
 * dependency-cruiser (it reads CommonJS requires), so nothing is hidden. The types come
 * from the type-only imports above; `test/observability/tracing-sdk.int.test.ts` checks that
 * none of these modules is loaded until traces start.
 */
export function loadTracingSdk(): TracingSdk {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when traces are on (above) */
  return {
    sdkTraceBase: require('@opentelemetry/sdk-trace-base') as typeof SdkTraceBase,
    sdkTraceNode: require('@opentelemetry/sdk-trace-node') as typeof SdkTraceNode,
    resources: require('@opentelemetry/resources') as typeof Resources,
    semanticConventions:
      require('@opentelemetry/semantic-conventions') as typeof SemanticConventions,
    otlpHttp: require('@opentelemetry/exporter-trace-otlp-http') as typeof ExporterOtlpHttp,
    otlpProto: require('@opentelemetry/exporter-trace-otlp-proto') as typeof ExporterOtlpProto,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/**
 * `@temporalio/interceptors-opentelemetry` (the Temporal client and activity interceptors,
 * the workflow span exporter), loaded where traces start for the same reason: importing it
 * loads the OpenTelemetry SDK.
 */
export function loadTemporalInterceptors(): typeof TemporalInterceptors {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when traces are on (above)
  return require('@temporalio/interceptors-opentelemetry') as typeof TemporalInterceptors;
}
