import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { ApiError, toApiError } from '../errors';

/** Renders every failure in the one documented shape; a 500 never carries a stack. */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined) {
        // Set by the router (and `unknownMethods`) for unmatched paths and methods (Allow is
        // already on ctx).
        if (ctx.status === 404)
          throw new ApiError('not_found', `no route ${ctx.method} ${ctx.path}`);
        if (ctx.status === 405) {
          throw new ApiError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}`);
        }
      }
    } catch (error) {
      const apiError = toApiError(error);
      if (apiError.status >= 500 && apiError.code === 'internal') {
        logger.error({ err: error, request_id: ctx.state.requestId }, 'unhandled error');
      } else if (apiError.code === 'unavailable' && !(error instanceof ApiError)) {
        logger.warn({ err: error, request_id: ctx.state.requestId }, 'dependency unavailable');
      }
      ctx.status = apiError.status;
      for (const [name, value] of Object.entries(apiError.options.headers ?? {}))
        ctx.set(name, value);
      ctx.state.errorCode = apiError.code;
      ctx.body = {
        ok: false,
        error: {
          code: apiError.code,
          message: apiError.message,
          request_id: ctx.state.requestId as string,
          ...apiError.options.extra,
        },
        detail: apiError.options.detail ?? apiError.message,
      };
    }
  };
}
