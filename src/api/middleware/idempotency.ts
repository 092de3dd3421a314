import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import stringify from 'safe-stable-stringify';
import type { AppDeps } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import { ApiError, validationError } from '../errors';

/**
 * 1..255 visible ASCII characters (`!` to `~`: printable, no space): the check, the OpenAPI
 * document and docs/conventions.md say the same.
 */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7e]{1,255}$';
const VALID_KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);
/** Attempts at storing the answer before giving up (the claim then stays pending). */
const COMPLETE_ATTEMPTS = 4;
/**
 * What a replay answers in place of a secret the first answer carried: the secret is never
 * stored, so it cannot be shown twice. The `Idempotent-Redacted` header names the fields.
 */
export const REDACTED_SECRET = '[redacted: a secret is shown only in the first answer]';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * `Idempotency-Key` on creating POSTs: the first answer (2xx) is stored and replayed for a
 * repeat with the same key and request; the same key with a different request is 409.
 * Keys are scoped to the caller (its API key, or its address on the public route).
 *
 * A claim is never taken over: while its request runs, or when that request died or its
 * answer could not be stored, a repeat is 409 (`in progress`, or `outcome unknown` once the
 * claim is older than `IDEMPOTENCY_STALE_MS`), never a second creation.
 *
 * No secret is stored: the `secretFields` of the answer's payload (a new API key) are kept
 * as `REDACTED_SECRET`, so a replay says the secret is not shown again rather than showing
 * it. Records expire `IDEMPOTENCY_RETENTION_HOURS` after the claim: an expired one is never
 * replayed (the key is claimed afresh), and the service monitor prunes them.
 * docs/conventions.md.
 */
export function idempotency(
  deps: AppDeps,
  operationId: string,
  secretFields: readonly string[],
): Middleware {
  const repo = deps.repos.idempotency;
  const staleMs = deps.config.idempotencyStaleMs;
  const retentionMs = deps.config.idempotencyRetentionHours * 3_600_000;
  return async (ctx, next) => {
    // Absent: no replay. Present, even empty: it must be a valid key (an empty one is a
    // client bug that would otherwise silently lose the protection it asked for).
    if (ctx.headers['idempotency-key'] === undefined) {
      await next();
      return;
    }
    const key = ctx.get('Idempotency-Key');
    if (!VALID_KEY.test(key)) {
      throw validationError([
        {
          loc: ['header', 'idempotency-key'],
          msg: 'Idempotency-Key must be 1..255 visible ASCII characters (! to ~, no spaces)',
          type: 'value_error',
        },
      ]);
    }
    const auth = ctx.state.auth as AuthContext | undefined;
    const scope = auth ? `key:${auth.keyId}` : `ip:${ctx.ip}`;
    const id = sha256(`${scope}\u0000${operationId}\u0000${key}`);
    const input = ctx.state.validated as { params: unknown; query: unknown; body: unknown };
    const requestHash = sha256(
      stringify({ params: input.params, query: input.query, body: input.body }) ?? '',
    );

    const now = Date.now();
    const existing = await repo.claim(
      id,
      requestHash,
      new Date(now).toISOString(),
      new Date(now - retentionMs).toISOString(),
    );
    if (existing) {
      if (existing.request_hash !== requestHash) {
        throw new ApiError('conflict', 'Idempotency-Key was already used with a different request');
      }
      if (existing.state === 'pending') throw pendingConflict(existing.created_at, staleMs);
      ctx.status = existing.status ?? 200;
      ctx.set(existing.headers ?? {});
      ctx.set('Idempotent-Replayed', 'true');
      if (existing.redacted?.length) ctx.set('Idempotent-Redacted', existing.redacted.join(','));
      ctx.body = JSON.parse(existing.body ?? 'null') as unknown;
      return;
    }

    try {
      await next();
    } catch (error) {
      await repo.release(id);
      throw error;
    }
    if (ctx.status >= 200 && ctx.status < 300) {
      const location = ctx.response.get('Location');
      const { body, redacted } = withoutSecrets(ctx.body, secretFields);
      const stored = await completeWithRetries(() =>
        repo.complete(
          id,
          ctx.status,
          JSON.stringify(body),
          location ? { Location: location } : {},
          redacted,
        ),
      );
      // The resource exists either way: answer it. Unstored, the claim stays pending, so a
      // repeat is 409 rather than a second creation.
      if (!stored) deps.logger.error({ idempotency_id: id }, 'idempotent answer not stored');
    } else {
      await repo.release(id);
    }
  };
}

/**
 * The answer to store: each secret field of its payload (`{ok, payload}`, or the bare body)
 * replaced by `REDACTED_SECRET`, and the names of those replaced. The answer sent now keeps
 * them: only the stored copy loses them.
 */
function withoutSecrets(
  answer: unknown,
  secretFields: readonly string[],
): { body: unknown; redacted: string[] } {
  if (secretFields.length === 0 || typeof answer !== 'object' || answer === null) {
    return { body: answer, redacted: [] };
  }
  const enveloped = 'payload' in answer && typeof answer.payload === 'object' && answer.payload;
  const payload = (enveloped ? answer.payload : answer) as Record<string, unknown>;
  const redacted = secretFields.filter((field) => payload[field] !== undefined);
  if (redacted.length === 0) return { body: answer, redacted };
  const clean = { ...payload };
  for (const field of redacted) clean[field] = REDACTED_SECRET;
  return { body: enveloped ? { ...answer, payload: clean } : clean, redacted };
}

/** 409 for a repeat of a request that has not answered (or whose answer was lost). */
function pendingConflict(claimedAt: string, staleMs: number): ApiError {
  if (Date.now() - Date.parse(claimedAt) <= staleMs) {
    return new ApiError('conflict', 'a request with this Idempotency-Key is still in progress', {
      headers: { 'Retry-After': '1' },
    });
  }
  return new ApiError(
    'conflict',
    'the first request with this Idempotency-Key did not finish, and its outcome is unknown: check whether it took effect, then use a new Idempotency-Key',
    { extra: { claimed_at: claimedAt } },
  );
}

/** Stores the answer, retrying a failed write with backoff; false when every try failed. */
async function completeWithRetries(complete: () => Promise<void>): Promise<boolean> {
  for (let attempt = 1; attempt <= COMPLETE_ATTEMPTS; attempt += 1) {
    try {
      await complete();
      return true;
    } catch {
      if (attempt < COMPLETE_ATTEMPTS) {
        await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
      }
    }
  }
  return false;
}
