import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import stringify from 'safe-stable-stringify';
import type { AppDeps } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import { ApiError, validationError } from '../errors';

const VALID_KEY = /^[\x21-\x7e]{1,255}$/;
/** A claim older than this whose request never answered is considered abandoned. */
const ABANDONED_AFTER_MS = 60_000;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * `Idempotency-Key` on creating POSTs: the first answer (2xx) is stored and replayed for a
 * repeat with the same key and request; the same key with a different request is 409.
 * Keys are scoped to the caller (its API key, or its address on the public route).
 */
export function idempotency(deps: AppDeps, operationId: string): Middleware {
  const repo = deps.repos.idempotency;
  return async (ctx, next) => {
    const key = ctx.get('Idempotency-Key');
    if (!key) {
      await next();
      return;
    }
    if (!VALID_KEY.test(key)) {
      throw validationError([
        {
          loc: ['header', 'idempotency-key'],
          msg: 'Idempotency-Key must be 1..255 printable ASCII characters',
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

    let existing = await repo.claim(id, requestHash, new Date().toISOString());
    if (
      existing?.state === 'pending' &&
      Date.now() - Date.parse(existing.created_at) > ABANDONED_AFTER_MS
    ) {
      await repo.collection.deleteOne({
        _id: id,
        state: 'pending',
        created_at: existing.created_at,
      });
      existing = await repo.claim(id, requestHash, new Date().toISOString());
    }
    if (existing) {
      if (existing.request_hash !== requestHash) {
        throw new ApiError('conflict', 'Idempotency-Key was already used with a different request');
      }
      if (existing.state === 'pending') {
        throw new ApiError('conflict', 'a request with this Idempotency-Key is still in progress', {
          headers: { 'Retry-After': '1' },
        });
      }
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
      await repo.complete(
        id,
        ctx.status,
        JSON.stringify(ctx.body),
        location ? { Location: location } : {},
      );
    } else {
      await repo.release(id);
    }
  };
}
