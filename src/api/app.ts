import Router from '@koa/router';
import Koa from 'koa';
import type { AppDeps } from '../app/deps';
import { unknownMethods } from './middleware/unknown-methods';
import { errorHandler } from './middleware/error-handler';
import { observe } from './middleware/observe';
import { requestId } from './middleware/request-id';
import { traceRequests } from './middleware/trace-requests';
import { mcpRoutes } from './mcp/mcp.routes';
import { directRoutes, mountRoutes } from './mount';
import { buildOpenApiDocument } from './openapi';
import { apiRoutes } from './routes';
import { consoleRoutes } from './routes/console.routes';
import { systemRoutes } from './routes/system.routes';
import type { RouteDefinition } from './route';

/** Every route the service answers, in registration order. */
export function allRoutes(openApi: () => Record<string, unknown>): RouteDefinition[] {
  const routes: RouteDefinition[] = [];
  routes.push(
    ...systemRoutes(openApi),
    ...consoleRoutes(),
    ...mcpRoutes(),
    ...apiRoutes(() => routes),
  );
  return routes;
}

/** Builds the Koa app over its dependencies; listening is the caller's business. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: deps.config.trustProxy });
  let document: Record<string, unknown> | undefined;
  const routes = allRoutes(
    () => (document ??= buildOpenApiDocument(routes, deps.config.publicBaseUrl)),
  );

  const router = new Router();
  const direct = mountRoutes(router, routes, deps);

  // First, so the server span covers everything the request does (only when traces are on).
  if (deps.tracing) app.use(traceRequests(deps.tracing.tracer));
  app.use(requestId());
  app.use(observe(deps));
  app.use(errorHandler(deps.logger));
  // Paths without parameters skip the router's matching (the same chain answers them).
  app.use(directRoutes(direct));
  app.use(unknownMethods(router));
  app.use(router.routes());
  app.use(router.allowedMethods());
  // Koa would print every error to stderr; the error handler has already logged it.
  app.silent = true;
  return app;
}
