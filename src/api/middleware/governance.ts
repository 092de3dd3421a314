import type { Context } from 'koa';
import type { AppDeps } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import {
  FAMILIES,
  entitlementRank,
  familyOpensTo,
  layerName,
  type FamilyName,
} from '../../auth/families';
import { keyRules } from '../../auth/limits';
import type { LimitDecision } from '../../auth/rate-limiter';
import { ApiError } from '../errors';

/**
 * One step of a route's chain that either passes (returns, or resolves) or throws; the
 * mount layer runs a route's steps in order in one middleware (src/api/mount.ts), so a
 * step costs no middleware frame of its own on the hot path.
 */
export type Gate = (ctx: Context) => void | Promise<void>;

/** 401 unless `X-API-Key` holds a valid, active key. */
export function authenticateGate(deps: Pick<AppDeps, 'authenticator'>): Gate {
  const { authenticator } = deps;
  return (ctx) => {
    const auth = authenticator.resolve(ctx.get('X-API-Key') || undefined);
    if (auth instanceof Promise) {
      return auth.then((resolved) => {
        ctx.state.auth = resolved;
      });
    }
    ctx.state.auth = auth;
    return undefined;
  };
}

/** 403 when the key's role, class or layer is below the family's minimum. */
export function guardFamilyGate(familyName: FamilyName): Gate {
  const policy = FAMILIES[familyName];
  return (ctx) => {
    const auth = ctx.state.auth as AuthContext;
    if (!familyOpensTo(policy, auth)) throw forbidden(familyName, auth);
  };
}

/** The 403 of `guardFamilyGate`, built only when a key falls short. */
function forbidden(familyName: FamilyName, auth: AuthContext): ApiError {
  const policy = FAMILIES[familyName];
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
    problems.push(`access layer ${required.access_layer} required, key holds ${held.access_layer}`);
  }
  return new ApiError('forbidden', `route family ${familyName} is outside this key's access`, {
    detail: `${familyName} (${policy.exposure}): ${problems.join('; ')}`,
    extra: { family: familyName, exposure: policy.exposure, required, held },
  });
}

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
