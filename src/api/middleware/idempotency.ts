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

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * `Idempotency-Key` on creating POSTs: the first answer (2xx) is stored and replayed for a
 * repeat with the same key and request; the same key with a different request is 409.
 * Keys are scoped to the caller (its API key, or its address on the public route).
 *
 * A claim is never taken over: while its request runs, or when that request died or its
 * answer could not be stored, a repeat is 409 (`in progress`, or `outcome unknown` once the
 * claim is older than `IDEMPOTENCY_STALE_MS`), never a second creation. docs/conventions.md.
 */
export function idempotency(deps: AppDeps, operationId: string): Middleware {
  const repo = deps.repos.idempotency;
  const staleMs = deps.config.idempotencyStaleMs;
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

    const existing = await repo.claim(id, requestHash, new Date().toISOString());
    if (existing) {
      if (existing.request_hash !== requestHash) {
        throw new ApiError('conflict', 'Idempotency-Key was already used with a different request');
      }
      if (existing.state === 'pending') throw pendingConflict(existing.created_at, staleMs);
      ctx.status = existing.status ?? 200;
      ctx.set(existing.headers ?? {});
      ctx.set('Idempotent-Replayed', 'true');
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
      const stored = await completeWithRetries(() =>
        repo.complete(
          id,
          ctx.status,
          JSON.stringify(ctx.body),
          location ? { Location: location } : {},
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
