import type { Context } from 'koa';
import type { AppDeps } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import { keyRules } from '../../auth/limits';
import type { LimitDecision } from '../../auth/rate-limiter';
import { ApiError } from '../errors';
import type { Gate } from './gate';

/** Per-key minute rate and UTC-day quota; every authenticated response carries RateLimit-*. */
export function rateLimitGate(deps: Pick<AppDeps, 'limiter' | 'metrics'>): Gate {
  const { limiter, metrics } = deps;
  const apply = (ctx: Context, decision: LimitDecision): void => {
    ctx.set(decision.headers);
    if (!decision.allowed && decision.violated) {
      metrics.limiterRejections.inc({ code: decision.violated.code });
      const what = decision.violated.name === 'day' ? 'daily quota' : 'per-minute rate limit';
      throw new ApiError(
        decision.violated.code,
        `${what} of ${decision.violated.limit} requests exceeded`,
        {
          headers: { 'Retry-After': String(decision.retryAfterSeconds) },
          extra: { retry_after_seconds: decision.retryAfterSeconds },
        },
      );
    }
  };
  return (ctx) => {
    const auth = ctx.state.auth as AuthContext;
    const decision = limiter.check(`key:${auth.keyId}`, keyRules(auth.limits));
    return decision instanceof Promise
      ? decision.then((decided) => apply(ctx, decided))
      : apply(ctx, decision);
  };
}

/**
 * 429 when one client address asked for too many sandbox keys this hour
 * (`ACCESS_REQUEST_LIMIT_PER_HOUR`), so keys cannot be minted in bulk.
 */
export function limitAccessRequestsGate(
  deps: Pick<AppDeps, 'limiter' | 'metrics' | 'config'>,
): Gate {
  return async (ctx) => {
    const decision = await deps.limiter.check(`access-request:${ctx.ip}`, [
      { name: 'hour', limit: deps.config.accessRequestLimitPerHour, code: 'rate_limited' },
    ]);
    if (!decision.allowed) {
      deps.metrics.limiterRejections.inc({ code: 'rate_limited' });
      throw new ApiError(
        'rate_limited',
        'too many access requests from this address; try again later',
        {
          headers: { ...decision.headers, 'Retry-After': String(decision.retryAfterSeconds) },
          extra: { retry_after_seconds: decision.retryAfterSeconds },
        },
      );
    }
  };
}
