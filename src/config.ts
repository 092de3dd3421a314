import { CHECKPOINT_SCHEDULE_PATTERN } from './domain/checkpoints/schemas';
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import Ajv from 'ajv';
import { mongoUriProblem } from './store/mongo-client-options';
import {
  tracingConfigOf,
  TRACING_ENV_SCHEMA,
  type TracingConfig,
} from './observability/tracing-config';

/** Validated process configuration. Only this module reads `process.env`. */
export interface Config {
  nodeEnv: string;
  host: string;
  port: number;
  mongodbUri: string;
  mongodbDb: string;
  temporalAddress: string;
  temporalNamespace: string;
  taskQueue: string;
  temporalUiUrl: string;
  publicBaseUrl: string;
  /** Where scenario runs reach the api (default: the address their run request reached). */
  scenarioApiUrl: string | undefined;
  adminApiKey: string | undefined;
  keyPepper: string;
  logLevel: string;
  keyCacheTtlMs: number;
  rateLimitSyncMs: number;
  accessRequestLimitPerHour: number;
  requestLedgerFlushMs: number;
  trustProxy: boolean;
  metricsListen: string | undefined;
  /** Where the worker serves its Prometheus metrics (`host:port`); unset: not served. */
  workerMetricsListen: string | undefined;
  /**
   * Check every 2xx body against its route's response schema and answer 500 on a mismatch
   * (tests turn it on; it costs a validation per response).
   */
  validateResponses: boolean;
  /** A pending Idempotency-Key claim older than this is reported as of unknown outcome. */
  idempotencyStaleMs: number;
  /** Idempotency records older than this are expired (never replayed) and pruned. */
  idempotencyRetentionHours: number;
  /** How long a propose waits for the action's dry run before answering 503. */
  proposeTimeoutMs: number;
  shutdownGraceMs: number;
  /** Threads of the api's engine pool for observe/recognize/render stepping (0: inline). */
  engineThreads: number;
  /** Deployment chunks one worker process runs at once on the compute task queue. */
  computeConcurrentChunks: number;
  /** Continuous checkpoints: an interval (`6h`) or a cron line; unset: none. */
  checkpointSchedule?: string;
  /** Ed25519 seed (32 bytes, hex or base64) the api signs decisions with; derived from KEY_PEPPER when unset. */
  decisionSigningKey?: string;
  /**
   * Ed25519 public keys (hex) whose signatures the worker and the proof checks accept on
   * proposals and decisions; unset: the public key of the own signing key. Several during a
   * key rotation (docs/actions.md).
   */
  decisionVerifyKeys?: string[];
  /**
   * Ed25519 seed (32 bytes, hex or base64) the api and the worker seal action ledger entries
   * and checkpoints with; derived from KEY_PEPPER when unset (docs/actions.md).
   */
  ledgerSealKey?: string;
  /** Ed25519 public keys (hex) whose ledger seals the proof checks accept; unset: the own key's. */
  ledgerSealVerifyKeys?: string[];
  /** Directory of the ledger checkpoint files (`<database>.jsonl`), outside the database. */
  ledgerCheckpointDir: string;
  /**
   * Key (32 bytes, hex or base64) the api and the worker seal the records that grant
   * authority with (keys, principals, rules...); derived from the ledger seal key when unset
   * (docs/approvals.md, "Threat model").
   */
  recordSealKey?: string;
  /** Earlier record seal keys whose seals are still accepted, during a rotation. */
  recordSealPreviousKeys?: string[];
  /** URL prefixes `webhook.post` actions may reach (empty: none). */
  webhookAllowlist: string[];
  /** WebAuthn relying party id passkeys are bound to (api and worker must agree). */
  webauthnRpId: string;
  /** Origins a passkey ceremony may come from (the console's). */
  webauthnOrigins: string[];
  /** How long an approver challenge may be signed and used (seconds). */
  approverChallengeTtlSeconds: number;
  webhookSigningSecret: string;
  webhookTimeoutMs: number;
  /** A pre-built workflow bundle for the worker (skips bundling at start). */
  workflowBundlePath: string | undefined;
  /** Audit rows younger than this many days are never pruned (`prune-ledgers`). */
  auditRetentionDays: number;
  /** `prune-ledgers` refuses a cut-off younger than this many days. */
  ledgerMinRetentionDays: number;
  /** Period of the api's dependency probe and workflow-failure scan (service events). */
  serviceMonitorIntervalMs: number;
  /** OpenTelemetry traces, from the standard `OTEL_*` variables; unset: traces off. */
  tracing: TracingConfig | undefined;
}

/** Thrown when the environment does not describe a usable configuration. */
export class ConfigError extends Error {}

const envSchema = {
  type: 'object',
  properties: {
    NODE_ENV: { type: 'string', enum: ['development', 'production', 'test'] },
    HOST: { type: 'string', minLength: 1 },
    PORT: { type: 'integer', minimum: 0, maximum: 65535 },
    MONGODB_URI: { type: 'string', pattern: '^mongodb(\\+srv)?://' },
    TEMPORAL_ADDRESS: { type: 'string', pattern: '^[^\\s:/]+:\\d+$' },
    TEMPORAL_NAMESPACE: { type: 'string', minLength: 1 },
    TEMPORAL_TASK_QUEUE: { type: 'string', minLength: 1 },
    TEMPORAL_UI_URL: { type: 'string', pattern: '^https?://' },
    PUBLIC_BASE_URL: { type: 'string', pattern: '^https?://' },
    SCENARIO_API_URL: { type: 'string', pattern: '^https?://' },
    ADMIN_API_KEY: { type: 'string', minLength: 32, pattern: '^\\S+$' },
    KEY_PEPPER: { type: 'string', minLength: 32 },
    LOG_LEVEL: {
      type: 'string',
      enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    },
    KEY_CACHE_TTL_MS: { type: 'integer', minimum: 0, maximum: 60000 },
    RATE_LIMIT_SYNC_MS: { type: 'integer', minimum: 10, maximum: 60000 },
    ACCESS_REQUEST_LIMIT_PER_HOUR: { type: 'integer', minimum: 1 },
    REQUEST_LEDGER_FLUSH_MS: { type: 'integer', minimum: 10, maximum: 60000 },
    TRUST_PROXY: { type: 'boolean' },
    VALIDATE_RESPONSES: { type: 'boolean' },
    IDEMPOTENCY_STALE_MS: { type: 'integer', minimum: 100, maximum: 86400000 },
    IDEMPOTENCY_RETENTION_HOURS: { type: 'integer', minimum: 1, maximum: 8760 },
    PROPOSE_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 600000 },
    METRICS_LISTEN: { type: 'string', pattern: '^[^\\s:]+:\\d+$' },
    WORKER_METRICS_LISTEN: { type: 'string', pattern: '^[^\\s:]+:\\d+$' },
    SHUTDOWN_GRACE_MS: { type: 'integer', minimum: 0, maximum: 600000 },
    WEBHOOK_ALLOWLIST: { type: 'string', pattern: '^(https?://[^\\s,]+)(,https?://[^\\s,]+)*$' },
    WEBHOOK_SIGNING_SECRET: { type: 'string', minLength: 32 },
    WEBHOOK_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 120000 },
    ENGINE_THREADS: { type: 'integer', minimum: 0, maximum: 64 },
    COMPUTE_CONCURRENT_CHUNKS: { type: 'integer', minimum: 1, maximum: 64 },
    CHECKPOINT_SCHEDULE: { type: 'string', pattern: CHECKPOINT_SCHEDULE_PATTERN },
    DECISION_SIGNING_KEY: { type: 'string', pattern: '^([0-9a-f]{64}|[A-Za-z0-9+/]{43}=?)$' },
    DECISION_VERIFY_KEYS: { type: 'string', pattern: '^[0-9a-f]{64}(,[0-9a-f]{64})*$' },
    LEDGER_SEAL_KEY: { type: 'string', pattern: '^([0-9a-f]{64}|[A-Za-z0-9+/]{43}=?)$' },
    LEDGER_SEAL_VERIFY_KEYS: { type: 'string', pattern: '^[0-9a-f]{64}(,[0-9a-f]{64})*$' },
    LEDGER_CHECKPOINT_DIR: { type: 'string', minLength: 1 },
    RECORD_SEAL_KEY: { type: 'string', pattern: '^([0-9a-f]{64}|[A-Za-z0-9+/]{43}=?)$' },
    RECORD_SEAL_PREVIOUS_KEYS: {
      type: 'string',
      pattern: '^([0-9a-f]{64}|[A-Za-z0-9+/]{43}=?)(,([0-9a-f]{64}|[A-Za-z0-9+/]{43}=?))*$',
    },
    WEBAUTHN_RP_ID: { type: 'string', pattern: '^[A-Za-z0-9.-]{1,253}$' },
    WEBAUTHN_ORIGINS: { type: 'string', pattern: '^(https?://[^\\s,/]+)(,https?://[^\\s,/]+)*$' },
    APPROVER_CHALLENGE_TTL_SECONDS: { type: 'integer', minimum: 10, maximum: 3600 },
    WORKFLOW_BUNDLE_PATH: { type: 'string', minLength: 1 },
    AUDIT_RETENTION_DAYS: { type: 'integer', minimum: 1, maximum: 36500 },
    LEDGER_MIN_RETENTION_DAYS: { type: 'integer', minimum: 1, maximum: 36500 },
    SERVICE_MONITOR_INTERVAL_MS: { type: 'integer', minimum: 50, maximum: 3600000 },
    ...TRACING_ENV_SCHEMA,
  },
  required: ['KEY_PEPPER'],
} as const;

const ajv = new Ajv({ coerceTypes: true, allErrors: true });
const validateEnv = ajv.compile(envSchema);

type Env = Record<string, string | undefined>;

/** Reads and validates configuration; throws ConfigError naming every bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const known = Object.keys(envSchema.properties);
  const raw: Record<string, unknown> = {};
  for (const name of known) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  if (!validateEnv(raw)) {
    const problems = (validateEnv.errors ?? []).map((e) => {
      const name = e.instancePath.replace(/^\//, '') || String(e.params['missingProperty'] ?? '');
      return `${name}: ${e.message ?? 'invalid'}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const v = raw as Record<string, string | number | boolean | undefined>;
  const str = (name: string, fallback: string): string =>
    (v[name] as string | undefined) ?? fallback;
  const num = (name: string, fallback: number): number =>
    (v[name] as number | undefined) ?? fallback;

  const port = num('PORT', 8080);
  const host = str('HOST', '127.0.0.1');
  const mongodbUri = str('MONGODB_URI', 'mongodb://127.0.0.1:27017/governed_runtime');
  const publicBaseUrl = str('PUBLIC_BASE_URL', defaultPublicBaseUrl(host, port)).replace(/\/$/, '');
  // The driver's own parse: an option it refuses fails here, named, before anything starts.
  const uriProblem = mongoUriProblem(mongodbUri);
  if (uriProblem) throw new ConfigError(`invalid configuration: MONGODB_URI: ${uriProblem}`);
  return {
    nodeEnv: str('NODE_ENV', 'development'),
    host,
    port,
    mongodbUri,
    mongodbDb: databaseNameOf(mongodbUri),
    temporalAddress: str('TEMPORAL_ADDRESS', '127.0.0.1:7233'),
    temporalNamespace: str('TEMPORAL_NAMESPACE', 'default'),
    taskQueue: str('TEMPORAL_TASK_QUEUE', 'governed-runtime'),
    temporalUiUrl: str('TEMPORAL_UI_URL', 'http://127.0.0.1:8233').replace(/\/$/, ''),
    publicBaseUrl,
    scenarioApiUrl: (v['SCENARIO_API_URL'] as string | undefined)?.replace(/\/$/, ''),
    adminApiKey: v['ADMIN_API_KEY'] as string | undefined,
    keyPepper: v['KEY_PEPPER'] as string,
    logLevel: str('LOG_LEVEL', 'info'),
    keyCacheTtlMs: num('KEY_CACHE_TTL_MS', 5000),
    rateLimitSyncMs: num('RATE_LIMIT_SYNC_MS', 1000),
    accessRequestLimitPerHour: num('ACCESS_REQUEST_LIMIT_PER_HOUR', 20),
    requestLedgerFlushMs: num('REQUEST_LEDGER_FLUSH_MS', 500),
    trustProxy: (v['TRUST_PROXY'] as boolean | undefined) ?? false,
    metricsListen: v['METRICS_LISTEN'] as string | undefined,
    workerMetricsListen: v['WORKER_METRICS_LISTEN'] as string | undefined,
    validateResponses: (v['VALIDATE_RESPONSES'] as boolean | undefined) ?? false,
    idempotencyStaleMs: num('IDEMPOTENCY_STALE_MS', 60000),
    idempotencyRetentionHours: num('IDEMPOTENCY_RETENTION_HOURS', 24),
    proposeTimeoutMs: num('PROPOSE_TIMEOUT_MS', 15000),
    shutdownGraceMs: num('SHUTDOWN_GRACE_MS', 10000),
    engineThreads: num('ENGINE_THREADS', 1),
    computeConcurrentChunks: num('COMPUTE_CONCURRENT_CHUNKS', 1),
    checkpointSchedule: v['CHECKPOINT_SCHEDULE'] as string | undefined,
    decisionSigningKey: v['DECISION_SIGNING_KEY'] as string | undefined,
    decisionVerifyKeys: (v['DECISION_VERIFY_KEYS'] as string | undefined)?.split(','),
    ledgerSealKey: v['LEDGER_SEAL_KEY'] as string | undefined,
    ledgerSealVerifyKeys: (v['LEDGER_SEAL_VERIFY_KEYS'] as string | undefined)?.split(','),
    ledgerCheckpointDir: resolve(str('LEDGER_CHECKPOINT_DIR', '.data/ledger-checkpoints')),
    recordSealKey: v['RECORD_SEAL_KEY'] as string | undefined,
    recordSealPreviousKeys: (v['RECORD_SEAL_PREVIOUS_KEYS'] as string | undefined)?.split(','),
    webhookAllowlist: str('WEBHOOK_ALLOWLIST', '').split(',').filter(Boolean),
    ...webauthnOf(publicBaseUrl, v),
    approverChallengeTtlSeconds: num('APPROVER_CHALLENGE_TTL_SECONDS', 300),
    // Without a secret of its own, webhooks are signed with a key derived from the pepper.
    webhookSigningSecret:
      (v['WEBHOOK_SIGNING_SECRET'] as string | undefined) ??
      createHash('sha256')
        .update(`webhook-signing:${v['KEY_PEPPER'] as string}`)
        .digest('hex'),
    webhookTimeoutMs: num('WEBHOOK_TIMEOUT_MS', 10000),
    workflowBundlePath: v['WORKFLOW_BUNDLE_PATH'] as string | undefined,
    auditRetentionDays: num('AUDIT_RETENTION_DAYS', 365),
    ledgerMinRetentionDays: num('LEDGER_MIN_RETENTION_DAYS', 7),
    serviceMonitorIntervalMs: num('SERVICE_MONITOR_INTERVAL_MS', 15000),
    tracing: tracingConfigOf(v),
  };
}

function databaseNameOf(uri: string): string {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(uri);
  const name = match?.[1] ? decodeURIComponent(match[1]) : 'governed_runtime';
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(name)) {
    throw new ConfigError(
      `invalid configuration: MONGODB_URI: database name "${name}" is not valid`,
    );
  }
  return name;
}

/** Hosts that mean "this machine": loopback addresses and the all-interfaces ones. */
const THIS_MACHINE = /^(127(\.\d{1,3}){3}|0\.0\.0\.0|::1?|localhost)$/;

/**
 * Where people reach the api when PUBLIC_BASE_URL is unset. A listener on this machine is
 * named `localhost`, not its address: browsers refuse an IP address as a WebAuthn relying
 * party (which defaults to this URL's host), so only under a name can the console register
 * and use passkeys; `localhost` is also a secure context over plain http.
 */
function defaultPublicBaseUrl(host: string, port: number): string {
  if (THIS_MACHINE.test(host)) return `http://localhost:${port}`;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * The WebAuthn relying party: by default the public base URL's host name and origin, so a
 * console served by the api works as it is; behind another host, set both.
 */
function webauthnOf(publicBaseUrl: string, v: Record<string, unknown>) {
  const base = new URL(publicBaseUrl);
  const origins = v['WEBAUTHN_ORIGINS'] as string | undefined;
  return {
    webauthnRpId: (v['WEBAUTHN_RP_ID'] as string | undefined) ?? base.hostname,
    webauthnOrigins: origins ? origins.split(',') : [base.origin],
  };
}
