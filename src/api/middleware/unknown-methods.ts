import type Router from '@koa/router';
import type { Middleware } from 'koa';

/**
 * The methods a path really has. A path matches its own route and any route whose parameter
 * it could fill (`/v1/external-actions/propose` fits `/v1/external-actions/{action_id}`), but
 * a parameter never takes a word of ours (ids carry a prefix: that GET is 404): when a route
 * without parameters matches, only such routes count.
 */
function allowedOn(router: Router, path: string): string[] {
  const layers = router.match(path, 'GET').path;
  const exact = layers.filter((layer) => layer.paramNames.length === 0);
  return [...new Set((exact.length > 0 ? exact : layers).flatMap((layer) => layer.methods))];
}

/**
 * `OPTIONS` on a known path: 204 with `Allow` (no key needed; CORS is not configured, so no
 * CORS headers); on an unknown one 404. A method no route uses (TRACE, PROPFIND, …), or one
 * the path does not have: 405 with exactly the path's methods in `Allow`, or 404 on an unknown
 * path. Runs around the router and its `allowedMethods`.
 */
export function unknownMethods(router: Router): Middleware {
  return async (ctx, next) => {
    if (ctx.method === 'OPTIONS') {
      const allowed = allowedOn(router, ctx.path);
      if (allowed.length === 0) {
        ctx.status = 404;
        return;
      }
      ctx.set('Allow', [...allowed, 'OPTIONS'].join(', '));
      ctx.status = 204;
      return;
    }
    await next();
    if ((ctx.status !== 501 && ctx.status !== 405) || ctx.body !== undefined) return;
    const allowed = allowedOn(router, ctx.path);
    if (allowed.length === 0) {
      ctx.status = 404;
      return;
    }
    ctx.set('Allow', allowed.join(', '));
    ctx.status = 405;
  };
}
