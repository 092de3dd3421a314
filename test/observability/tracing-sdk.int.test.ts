import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

// With traces off, neither process loads the OpenTelemetry SDK, its exporters or the Temporal
// interceptors (src/observability/tracing-sdk.ts): 349 modules and 4.4 MiB of heap at start.
// Checked on the build in a fresh node process, where `require.cache` is what a process loads
// (jest's own module registry would not say).
const DIST = join(__dirname, '..', '..', 'dist', 'src');

/** Packages of the modules a fresh process has loaded after running `script`. */
function packagesLoadedBy(script: string): string[] {
  const probe = `${script}
    const names = Object.keys(require.cache)
      .filter((path) => path.includes('node_modules'))
      .map((path) => path.split('node_modules/').pop().split('/'))
      .map((parts) => parts.slice(0, parts[0].startsWith('@') ? 2 : 1).join('/'));
    process.stdout.write(JSON.stringify([...new Set(names)]));`;
  const out = execFileSync(process.execPath, ['-e', probe], { cwd: DIST, encoding: 'utf8' });
  return JSON.parse(out) as string[];
}

const SDK_PACKAGES = [
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/resources',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/exporter-trace-otlp-proto',
  '@opentelemetry/core',
  '@temporalio/interceptors-opentelemetry',
];

beforeAll(() => {
  if (!existsSync(join(DIST, 'main.js')))
    throw new Error('dist/ is missing: run `npm run build` (npm test does it)');
});

describe('the OpenTelemetry SDK is loaded only when traces start', () => {
  it('is not loaded by the api and worker modules', () => {
    const loaded = packagesLoadedBy(`
      require('./app/build-deps'); require('./api/app'); require('./worker/create-worker');
      require('./observability/tracing'); require('./temporal/tracing'); require('./worker/tracing');`);
    // The probe saw the processes' other dependencies, so an empty answer is not why this passes.
    expect(loaded).toEqual(expect.arrayContaining(['mongodb', 'koa', '@temporalio/client']));
    expect(loaded.filter((name) => SDK_PACKAGES.includes(name))).toEqual([]);
  });

  it('is loaded by starting traces and building the Temporal interceptors', () => {
    const loaded = packagesLoadedBy(`
      const { startTracing } = require('./observability/tracing');
      const { temporalClientTracing } = require('./temporal/tracing');
      const { workerTracingOptions } = require('./worker/tracing');
      const tracing = startTracing(
        { url: 'http://127.0.0.1:9/v1/traces', protocol: 'http/protobuf', sampler: 'always_on', samplerRatio: 1 },
        { defaultServiceName: 'probe' },
      );
      temporalClientTracing();
      workerTracingOptions(tracing);
      void tracing.shutdown();`);
    expect(loaded).toEqual(expect.arrayContaining(SDK_PACKAGES));
  });
});
