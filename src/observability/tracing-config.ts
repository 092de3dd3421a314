/**
 * The standard OpenTelemetry variables this service honours for traces
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/), as
 * `src/config.ts` validates them. Traces are on only when an OTLP endpoint is configured:
 * without one nothing of OpenTelemetry is started.
 */

const PROTOCOLS = ['http/protobuf', 'http/json'] as const;
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

export type OtlpProtocol = (typeof PROTOCOLS)[number];
export type SamplerName = (typeof SAMPLERS)[number];

export interface TracingConfig {
  /** Where spans are posted: the traces endpoint as given, or `<endpoint>/v1/traces`. */
  url: string;
  protocol: OtlpProtocol;
  /** `OTEL_SERVICE_NAME`; unset: each process names itself (`governed-runtime-api`, `-worker`). */
  serviceName: string | undefined;
  sampler: SamplerName;
  /** `OTEL_TRACES_SAMPLER_ARG`: the ratio of the `*traceidratio` samplers (default 1). */
  samplerRatio: number;
}

/**
 * JSON Schema of the variables, merged into the config's. `grpc` is refused: the service
 * ships the two HTTP exporters only (the collector in docker-compose accepts both).
 */
export const TRACING_ENV_SCHEMA = {
  OTEL_SDK_DISABLED: { type: 'boolean' },
  OTEL_TRACES_EXPORTER: { type: 'string', enum: ['otlp', 'none'] },
  OTEL_EXPORTER_OTLP_ENDPOINT: { type: 'string', pattern: '^https?://' },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: { type: 'string', pattern: '^https?://' },
  OTEL_EXPORTER_OTLP_PROTOCOL: { type: 'string', enum: PROTOCOLS },
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: { type: 'string', enum: PROTOCOLS },
  OTEL_SERVICE_NAME: { type: 'string', minLength: 1 },
  OTEL_TRACES_SAMPLER: { type: 'string', enum: SAMPLERS },
  OTEL_TRACES_SAMPLER_ARG: { type: 'number', minimum: 0, maximum: 1 },
} as const;

type Values = Record<string, string | number | boolean | undefined>;

/** The tracing configuration of validated variables; undefined when traces are off. */
export function tracingConfigOf(v: Values): TracingConfig | undefined {
  if (v['OTEL_SDK_DISABLED'] === true || v['OTEL_TRACES_EXPORTER'] === 'none') return undefined;
  const tracesEndpoint = v['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] as string | undefined;
  const endpoint = v['OTEL_EXPORTER_OTLP_ENDPOINT'] as string | undefined;
  if (!tracesEndpoint && !endpoint) return undefined;
  return {
    // The signal-specific endpoint is used as is; the general one gets the signal's path.
    url: tracesEndpoint ?? `${endpoint!.replace(/\/$/, '')}/v1/traces`,
    protocol: (v['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'] ??
      v['OTEL_EXPORTER_OTLP_PROTOCOL'] ??
      'http/protobuf') as OtlpProtocol,
    serviceName: v['OTEL_SERVICE_NAME'] as string | undefined,
    sampler: (v['OTEL_TRACES_SAMPLER'] ?? 'parentbased_always_on') as SamplerName,
    samplerRatio: (v['OTEL_TRACES_SAMPLER_ARG'] as number | undefined) ?? 1,
  };
}
