import type { Middleware } from 'koa';
import type { AppDeps } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import { isoOfMs } from '../../lib/time';
import type { RouteDefinition } from '../route';

/**
 * Logs, measures and ledgers every answered request (after the error handler has shaped
 * it): request id, key id (never the key), family, status and latency.
 */
export function observe(
  deps: Pick<AppDeps, 'logger' | 'metrics' | 'ledger' | 'config' | 'answeredStatuses'>,
): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    // Read now: once a client aborts, its socket no longer knows the address.
    const clientIp = ctx.ip || 'unknown';
    try {
      await next();
    } finally {
      const latencyMs = Number(process.hrtime.bigint() - started) / 1e6;
      const route = ctx.state.route as RouteDefinition | undefined;
      const auth = ctx.state.auth as AuthContext | undefined;
      const family = route?.family ?? 'unmatched';
      const status = ctx.status;
      if (route && deps.config.validateResponses) {
        deps.answeredStatuses.add(`${route.operationId} ${status}`);
      }
      deps.metrics.latency.observe({ family, status }, latencyMs / 1000);
      deps.logger.info(
        {
          request_id: ctx.state.requestId,
          method: ctx.method,
          route: route?.path ?? ctx.path,
          family,
          status,
          key_id: auth?.keyId,
          latency_ms: Math.round(latencyMs * 100) / 100,
        },
        'request',
      );
      if (ctx.path.startsWith('/v1/')) {
        deps.ledger.record({
          request_id: ctx.state.requestId as string,
          at: isoOfMs(Date.now()),
          method: ctx.method,
          route: route?.path ?? ctx.path.slice(0, 512),
          operation_id: route?.operationId ?? null,
          family: route?.family ?? null,
          status,
          latency_ms: Math.round(latencyMs * 100) / 100,
          key_id: auth?.keyId ?? null,
          principal_id: auth?.principalId ?? null,
          client_ip: clientIp,
          error_code: (ctx.state.errorCode as string | undefined) ?? null,
        });
      }
    }
  };
}
