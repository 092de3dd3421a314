import type { Middleware } from 'koa';
import type { AppDeps } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import { FAMILIES, entitlementRank, layerName, type FamilyName } from '../../auth/families';
import { keyRules } from '../../auth/limits';
import { ApiError } from '../errors';

/** 401 unless `X-API-Key` holds a valid, active key. */
export function authenticate(deps: AppDeps): Middleware {
  return async (ctx, next) => {
    ctx.state.auth = await deps.authenticator.authenticate(ctx.get('X-API-Key') || undefined);
    await next();
  };
}

/** 403 when the key's role, class or layer is below the family's minimum. */
export function guardFamily(familyName: FamilyName): Middleware {
  const policy = FAMILIES[familyName];
  return async (ctx, next) => {
    const auth = ctx.state.auth as AuthContext;
    const required = {
      entitlement: policy.minEntitlement,
      access_layer: layerName(policy.minLayer),
      ...(policy.operatorOnly ? { role: 'operator' } : {}),
    };
    const held = {
      entitlement: auth.entitlement,
      access_layer: layerName(auth.accessLayer),
      role: auth.role,
    };
    const problems: string[] = [];
    if (policy.operatorOnly && auth.role !== 'operator') {
      problems.push(`role operator required, key's principal is ${auth.role}`);
    }
    if (entitlementRank(auth.entitlement) < entitlementRank(policy.minEntitlement)) {
      problems.push(`entitlement ${policy.minEntitlement} required, key holds ${auth.entitlement}`);
    }
    if (auth.accessLayer < policy.minLayer) {
      problems.push(
        `access layer ${required.access_layer} required, key holds ${held.access_layer}`,
      );
    }
    if (problems.length > 0) {
      throw new ApiError('forbidden', `route family ${familyName} is outside this key's access`, {
        detail: `${familyName} (${policy.exposure}): ${problems.join('; ')}`,
        extra: { family: familyName, exposure: policy.exposure, required, held },
      });
    }
    await next();
  };
}

/** Per-key minute rate and UTC-day quota; every authenticated response carries RateLimit-*. */
export function rateLimit(deps: AppDeps): Middleware {
  return async (ctx, next) => {
    const auth = ctx.state.auth as AuthContext;
    const decision = await deps.limiter.check(`key:${auth.keyId}`, keyRules(auth.limits));
    ctx.set(decision.headers);
    if (!decision.allowed && decision.violated) {
      deps.metrics.limiterRejections.inc({ code: decision.violated.code });
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
    await next();
  };
}

/**
 * 429 when one client address asked for too many sandbox keys this hour
 * (`ACCESS_REQUEST_LIMIT_PER_HOUR`), so keys cannot be minted in bulk.
 */
export function limitAccessRequests(deps: AppDeps): Middleware {
  return async (ctx, next) => {
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
    await next();
  };
}
