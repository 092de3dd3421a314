import { execFileSync, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  FAMILIES,
  familyOpensTo,
  type FamilyHolder,
  type FamilyName,
} from '../../src/auth/families';
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
    // The stateful phase too, bounded by the same time: it follows the OpenAPI links.
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
// Either way the seed is chosen here and printed, so any run can be run again.
const SEED =
  process.env['FUZZ_SEED'] ??
  (PROFILE_NAME === 'suite' ? '20261125' : String(randomInt(1, 2 ** 31)));
const HOOKS = join(ROOT, 'test', 'fuzz', 'hooks.py');

let app: TestApp;
let worker: TestWorker;
let strategicKey: string;
let operatorKey: string;
/**
 * The ids the two passes run with (keys, principals, organizations, the policies lifting
 * their limits): test/fuzz/hooks.py keeps every operation from disabling them.
 */
const protectedIds: string[] = [];

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
  for (const key of [strategic, operator]) {
    const whoami = await call<{ payload: { organization: { organization_id: string } } }>(
      app.url,
      'GET',
      '/v1/principals/me',
      { key: key === strategic ? strategicKey : operatorKey },
    );
    if (whoami.status !== 200) throw new Error(`whoami failed: ${whoami.text}`);
    protectedIds.push(key.keyId, key.principalId, whoami.body.payload.organization.organization_id);
  }
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
    protectedIds.push((policy.body as { payload: { policy_id: string } }).payload.policy_id);
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
  /**
   * Statuses each operation answered to requests carrying the run's own key (from
   * test/fuzz/hooks.py), by operationId.
   */
  statuses: Map<string, Set<number>>;
  /** 401s to requests carrying the run's own key: `operationId: reason`. */
  ownKeyRefused: string[];
  /** The command line that runs this pass again (the key as `$GR_FUZZ_KEY`). */
  command: string;
}

/** The environment of a run: the hooks, the ids they protect, where they log statuses. */
function hookEnv(statusLog: string): Record<string, string> {
  return {
    SCHEMATHESIS_HOOKS: HOOKS,
    GR_FUZZ_PROTECTED: JSON.stringify({ ids: protectedIds }),
    GR_FUZZ_STATUS_LOG: statusLog,
  };
}

const shellQuote = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

/** One `st run` with this key; its whole output is kept in .data/test/fuzz/<label>.txt. */
function schemathesis(label: string, apiKey: string): Promise<RunResult> {
  const outputPath = join(REPORTS, `${PROFILE_NAME}-${label}.txt`);
  const statusLog = join(REPORTS, `${PROFILE_NAME}-${label}.statuses.jsonl`);
  rmSync(statusLog, { force: true });
  const args = (key: string): string[] => [
    '--config-file',
    join(ROOT, 'test', 'fuzz', 'schemathesis.toml'),
    'run',
    `${app.url}/openapi.json`,
    // The document's server is the public base URL; the test app listens elsewhere.
    '--url',
    app.url,
    '--header',
    `X-API-Key: ${key}`,
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
    '--seed',
    SEED,
  ];
  const env = hookEnv(statusLog);
  const command = [
    ...Object.entries(env).map(([name, value]) => `${name}=${shellQuote(value)}`),
    ST,
    ...args('$GR_FUZZ_KEY').map((word) =>
      word.includes('$GR_FUZZ_KEY') ? `"${word}"` : shellQuote(word),
    ),
  ].join(' ');
  // The seed and the command line, so a finding can be run again (with FUZZ_SEED, the
  // whole test; with the command, this pass against an app of your own).
  console.log(`schemathesis, ${label} key, seed ${SEED}:\n${command}`);
  return new Promise((resolve, reject) => {
    const child = spawn(ST, args(apiKey), {
      cwd: REPORTS,
      env: { ...process.env, ...env, GR_FUZZ_KEY: apiKey },
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
      file.end(() =>
        resolve({
          label,
          code,
          output: readFileSync(outputPath, 'utf8'),
          ...readStatuses(statusLog),
          command,
        }),
      );
    });
  });
}

function readStatuses(path: string): Pick<RunResult, 'statuses' | 'ownKeyRefused'> {
  const statuses = new Map<string, Set<number>>();
  const ownKeyRefused = new Set<string>();
  if (!existsSync(path)) return { statuses, ownKeyRefused: [] };
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line) continue;
    const row = JSON.parse(line) as {
      operation: string;
      status: number;
      own_key: boolean;
      reason?: string;
    };
    // Requests without the key (or with another) are the coverage phase's own auth cases.
    if (!row.own_key) continue;
    if (row.status === 401) ownKeyRefused.add(`${row.operation}: ${row.reason ?? ''}`);
    let seen = statuses.get(row.operation);
    if (!seen) statuses.set(row.operation, (seen = new Set()));
    seen.add(row.status);
  }
  return { statuses, ownKeyRefused: [...ownKeyRefused] };
}

/** The failures and errors sections of a run's output, or its tail. */
function findings(result: RunResult): string {
  const start = result.output.search(/^=+ (FAILURES|ERRORS) =+$/m);
  const end = result.output.search(/^=+ (WARNINGS|SUMMARY) =+$/m);
  const text =
    start >= 0 ? result.output.slice(start, end > start ? end : undefined) : result.output;
  return `schemathesis with the ${result.label} key (seed ${SEED}) exited ${String(result.code)}:\n${text.slice(-20_000)}\nrun again: FUZZ_SEED=${SEED} FUZZ_PROFILE=${PROFILE_NAME} npx jest test/api/fuzz.int.test.ts, or, against an app of yours:\n${result.command}`;
}

/** The operationIds of the document whose route family opens to this key. */
async function operationsOpenTo(holder: FamilyHolder): Promise<string[]> {
  const document = await call<{ paths: Record<string, Record<string, Record<string, unknown>>> }>(
    app.url,
    'GET',
    '/openapi.json',
  );
  const open: string[] = [];
  for (const item of Object.values(document.body.paths)) {
    for (const operation of Object.values(item)) {
      const family = operation['x-route-family'] as string | undefined;
      const id = operation['operationId'] as string | undefined;
      if (!family || !id) continue;
      if (family === 'public' || familyOpensTo(FAMILIES[family as FamilyName], holder)) {
        open.push(id);
      }
    }
  }
  return open;
}

/**
 * Operations this key may call that answered nothing but 401 or 403: either the key stopped
 * working during the run (an operation disabled it), or the operation refuses whatever it
 * is sent, so the logic behind it was never fuzzed. Either way the pass proved nothing there.
 */
function onlyRefused(result: RunResult, open: string[]): string[] {
  return open.filter((id) => {
    const seen = result.statuses.get(id);
    return seen !== undefined && [...seen].every((status) => status === 401 || status === 403);
  });
}

it(
  `finds nothing with the operator and a strategic key (${PROFILE_NAME}: ${PROFILE.phases.join(', ')})`,
  async () => {
    const results = await Promise.all([
      schemathesis('operator', operatorKey),
      schemathesis('strategic', strategicKey),
    ]);
    const holders: Record<string, FamilyHolder> = {
      operator: { role: 'operator', entitlement: 'strategic', accessLayer: 3 },
      strategic: { role: 'member', entitlement: 'strategic', accessLayer: 3 },
    };
    const problems: string[] = [];
    for (const result of results) {
      // The summary says what ran; a run that tested no operation proves nothing.
      expect(result.output).toMatch(/Tested: 1\d\d/);
      if (result.code !== 0) problems.push(findings(result));
      if (result.ownKeyRefused.length > 0) {
        problems.push(
          `with the ${result.label} key (seed ${SEED}), the run's own key was refused (401) during the run, so what came after was never fuzzed: ${result.ownKeyRefused.slice(0, 20).join('; ')}\nrun again: ${result.command}`,
        );
      }
      const refused = onlyRefused(result, await operationsOpenTo(holders[result.label]));
      if (refused.length > 0) {
        problems.push(
          `with the ${result.label} key (seed ${SEED}), ${refused.length} operations it may call answered only 401/403 (its key stopped working, or they refuse every generated case): ${refused.join(', ')}\nrun again: ${result.command}`,
        );
      }
    }
    if (problems.length > 0) throw new Error(problems.join('\n\n'));
  },
  (PROFILE.maxTime + 180) * 1000,
);
