import type Router from '@koa/router';
import type { Middleware } from 'koa';

/**
 * A method no route uses (TRACE, PROPFIND, …): the router answers 501 on every path; a
 * known path answers 405 with `Allow` instead, an unknown one 404, as for any other method.
 * Runs around the router's `allowedMethods`.
 */
export function unknownMethods(router: Router): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.status !== 501 || ctx.body !== undefined) return;
    const allowed = [...new Set(router.match(ctx.path, ctx.method).path.flatMap((l) => l.methods))];
    if (allowed.length === 0) {
      ctx.status = 404;
      return;
    }
    ctx.set('Allow', allowed.join(', '));
    ctx.status = 405;
  };
}
