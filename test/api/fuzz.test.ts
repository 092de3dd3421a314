import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call } from '../helpers/http';
import { createTestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';
import { TEST_SERVERS } from '../test-env';

/**
 * Schemathesis against the real app and a worker (docs/fuzzing.md): every operation of
 * /openapi.json, once with the operator key and once with a strategic key, in two `st run`
 * processes side by side. Any finding fails the test, with schemathesis' own report.
 *
 * `npm test` runs the bounded profile; `npm run fuzz` (scripts/fuzz.sh) the larger one with
 * the stateful phase, which follows the OpenAPI `links` from creating operations.
 */
const ROOT = join(__dirname, '..', '..');
const ST = join(ROOT, '.tools', 'schemathesis-venv', 'bin', 'st');
const REPORTS = join(TEST_SERVERS.dataDir, 'fuzz');

const CHECKS = [
  'not_a_server_error',
  'response_schema_conformance',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
];

interface Profile {
  phases: string[];
  /** Test cases per operation and fuzzing cycle (config file overrides: deploys). */
  maxExamples: number;
  /** Seconds each run may take: schemathesis shares it out among operations and phases. */
  maxTime: number;
}

const num = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};

const PROFILES: Record<'suite' | 'full', Profile> = {
  // Both runs in parallel, so the step adds about `maxTime` plus the app's start (< 3 min).
  suite: {
    // The stateful phase too, bounded by the same time: CI follows the OpenAPI links.
    phases: ['examples', 'coverage', 'fuzzing', 'stateful'],
    maxExamples: num('FUZZ_MAX_EXAMPLES', 10),
    maxTime: num('FUZZ_MAX_TIME', 100),
  },
  full: {
    phases: ['examples', 'coverage', 'fuzzing', 'stateful'],
    maxExamples: num('FUZZ_MAX_EXAMPLES', 100),
    maxTime: num('FUZZ_MAX_TIME', 600),
  },
};
const PROFILE_NAME = process.env['FUZZ_PROFILE'] === 'full' ? 'full' : 'suite';
const PROFILE = PROFILES[PROFILE_NAME];
// The suite's pass draws from a fixed seed, so `npm test` (and CI) runs the same cases every
// time and a finding fails every run, not one in N; `npm run fuzz` explores with fresh seeds.
const SEED = process.env['FUZZ_SEED'] ?? (PROFILE_NAME === 'suite' ? '20261125' : undefined);

let app: TestApp;
let worker: TestWorker;
let strategicKey: string;
let operatorKey: string;

beforeAll(async () => {
  // Idempotent and quick once installed; `npm test` has already run it.
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-schemathesis.sh')], { stdio: 'inherit' });
  mkdirSync(REPORTS, { recursive: true });
  // A proposal waits for its dry run; on a busy 2-core machine 15 s may not do.
  app = await startTestApp('fuzz', { env: { PROPOSE_TIMEOUT_MS: '60000' } });
  worker = await startTestWorker(app.deps);
  const strategic = await createTestKey(app, { entitlement: 'strategic', accessLayer: 3 });
  strategicKey = strategic.apiKey;
  // An operator of its own, not the bootstrap key: no quota policy may name the bootstrap
  // key (it is never throttled, nor lifted), and this one's limits must be lifted.
  const operator = await createTestKey(app, {
    entitlement: 'strategic',
    accessLayer: 3,
    role: 'operator',
  });
  operatorKey = operator.apiKey;
  // Thousands of requests a minute: an operator's quota policy lifts both keys' limits,
  // or most answers would be 429 and the logic behind them untested.
  for (const keyId of [operator.keyId, strategic.keyId]) {
    const policy = await call(app.url, 'POST', '/v1/admin/policies/create', {
      key: app.adminKey,
      body: {
        name: 'fuzzing',
        scope: { key_id: keyId },
        requests_per_minute: 1_000_000,
        daily_quota: 1_000_000_000,
      },
    });
    if (policy.status !== 201) throw new Error(`policy create failed: ${policy.text}`);
  }
}, 300_000);

afterAll(async () => {
  await worker?.stop();
  await app?.close();
});

interface RunResult {
  label: string;
  code: number | null;
  output: string;
}

/** One `st run` with this key; its whole output is kept in .data/test/fuzz/<label>.txt. */
function schemathesis(label: string, apiKey: string): Promise<RunResult> {
  const outputPath = join(REPORTS, `${PROFILE_NAME}-${label}.txt`);
  const args = [
    '--config-file',
    join(ROOT, 'test', 'fuzz', 'schemathesis.toml'),
    'run',
    `${app.url}/openapi.json`,
    // The document's server is the public base URL; the test app listens elsewhere.
    '--url',
    app.url,
    '--header',
    `X-API-Key: ${apiKey}`,
    '--checks',
    CHECKS.join(','),
    '--phases',
    PROFILE.phases.join(','),
    '--max-examples',
    String(PROFILE.maxExamples),
    '--max-time',
    String(PROFILE.maxTime),
    // One worker thread per run: with several, Python 3.11's ast.parse (which hypothesis
    // calls to describe filters) races and fails with "AST constructor recursion depth
    // mismatch" (CPython gh-106905). Two processes run side by side instead.
    '--workers',
    '1',
    '--request-timeout',
    '90',
    '--no-color',
    '--output-truncate',
    'false',
    '--report',
    'junit',
    '--report-junit-path',
    join(REPORTS, `${PROFILE_NAME}-${label}.junit.xml`),
    ...(SEED ? ['--seed', SEED] : []),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(ST, args, {
      cwd: REPORTS,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const file = createWriteStream(outputPath);
    child.stdout.pipe(file);
    child.stderr.pipe(file);
    // A hard stop well past the budget, so a hung run cannot hold the suite.
    const killer = setTimeout(() => child.kill('SIGKILL'), (PROFILE.maxTime + 120) * 1000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      file.end(() => resolve({ label, code, output: readFileSync(outputPath, 'utf8') }));
    });
  });
}

/** The failures and errors sections of a run's output, or its tail. */
function findings(result: RunResult): string {
  const start = result.output.search(/^=+ (FAILURES|ERRORS) =+$/m);
  const end = result.output.search(/^=+ (WARNINGS|SUMMARY) =+$/m);
  const text =
    start >= 0 ? result.output.slice(start, end > start ? end : undefined) : result.output;
  return `schemathesis with the ${result.label} key exited ${String(result.code)}:\n${text.slice(-20_000)}`;
}

it(
  `finds nothing with the operator and a strategic key (${PROFILE_NAME}: ${PROFILE.phases.join(', ')})`,
  async () => {
    const results = await Promise.all([
      schemathesis('operator', operatorKey),
      schemathesis('strategic', strategicKey),
    ]);
    for (const result of results) {
      // The summary says what ran; a run that tested no operation proves nothing.
      expect(result.output).toMatch(/Tested: 1\d\d/);
      if (result.code !== 0) throw new Error(findings(result));
    }
  },
  (PROFILE.maxTime + 180) * 1000,
);
