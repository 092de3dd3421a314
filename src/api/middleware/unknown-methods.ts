import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { PLAIN_PATH } from '../route';

/**
 * The methods a path really has. A path matches its own route and any route whose parameter
 * it could fill (`/v1/external-actions/propose` fits `/v1/external-actions/{action_id}`), but
 * a parameter never takes a word of ours (ids carry a prefix: that GET is 405, below): when a
 * route without parameters matches, only such routes count.
 */
function allowedOn(router: Router, path: string): string[] {
  const layers = router.match(path, 'GET').path;
  const exact = layers.filter((layer) => layer.paramNames.length === 0);
  return [...new Set((exact.length > 0 ? exact : layers).flatMap((layer) => layer.methods))];
}

/**
 * The methods of each path that routes without parameters have, by the path as the router
 * compares it (case-insensitively, one trailing slash optional).
 */
function ownMethods(router: Router): (path: string) => string[] | undefined {
  const methods = new Map<string, Set<string>>();
  for (const layer of router.stack) {
    const path = layer.path;
    if (layer.paramNames.length > 0 || typeof path !== 'string' || !PLAIN_PATH.test(path)) {
      continue;
    }
    const key = comparable(path);
    const set = methods.get(key) ?? new Set<string>();
    for (const method of layer.methods) set.add(method);
    methods.set(key, set);
  }
  const lists = new Map([...methods].map(([path, set]) => [path, [...set]]));
  return (path) => lists.get(comparable(path));
}

const comparable = (path: string): string =>
  (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).toLowerCase();

/**
 * `OPTIONS` on a known path: 204 with `Allow` (no key needed; CORS is not configured, so no
 * CORS headers); on an unknown one 404. A method no route uses (TRACE, PROPFIND, …), or one
 * the path does not have: 405 with exactly the path's methods in `Allow`, or 404 on an unknown
 * path. Runs around the router and its `allowedMethods`, after the direct routes (so a path's
 * own method never reaches it).
 *
 * A path that is a route of its own is answered 405 here, before the router, whatever else
 * could match it: `GET /v1/external-events/ingest` fits `/v1/external-events/{event_id}`,
 * whose chain would answer 404 for the id "ingest" (or 401 without a key), though the path
 * exists and only its method is wrong.
 */
export function unknownMethods(router: Router): Middleware {
  const ownOf = ownMethods(router);
  return async (ctx, next) => {
    const own = ctx.method === 'OPTIONS' ? undefined : ownOf(ctx.path);
    if (own && !own.includes(ctx.method)) {
      ctx.set('Allow', own.join(', '));
      ctx.status = 405;
      return;
    }
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
