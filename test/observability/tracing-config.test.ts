import { loadConfig } from '../../src/config';

const pepper = 'x'.repeat(40);
const tracingOf = (env: Record<string, string>) =>
  loadConfig({ KEY_PEPPER: pepper, ...env }).tracing;

describe('tracing configuration from the OTEL_* variables', () => {
  it('is off without an OTLP endpoint, whatever else is set', () => {
    expect(tracingOf({})).toBeUndefined();
    expect(tracingOf({ OTEL_SERVICE_NAME: 'api', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe(
      undefined,
    );
  });

  it('posts to <endpoint>/v1/traces over http/protobuf by default', () => {
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: undefined,
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
    });
  });

  it('takes the traces endpoint as given, and the traces protocol over the general one', () => {
    expect(
      tracingOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'gr-api-eu',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }),
    ).toEqual({
      url: 'https://traces.example/otlp',
      protocol: 'http/json',
      serviceName: 'gr-api-eu',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
    });
  });

  it('is off when the SDK is disabled or the traces exporter is none', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingOf({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(tracingOf({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(tracingOf({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBeDefined();
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER'],
    [{ OTEL_TRACES_SAMPLER_ARG: '2' }, 'OTEL_TRACES_SAMPLER_ARG'],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER'],
  ])('refuses %j naming the variable', (env, name) => {
    expect(() => loadConfig({ KEY_PEPPER: pepper, ...env })).toThrow(new RegExp(`${name}:`));
  });
});
