import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppDeps } from '../app/deps';
import type { AuthContext } from '../auth/auth-context';
import { PUBLIC_FAMILY } from '../auth/families';
import { validationError, type ValidationIssue } from './errors';
import { jsonBody } from './middleware/body';
import { authenticate, guardFamily, rateLimit } from './middleware/governance';
import { idempotency } from './middleware/idempotency';
import type { RouteDefinition, RouteRequest } from './route';
import { createValidatorFactory, type InputValidator } from './validation';

/** `/v1/sessions/{session_id}` → `/v1/sessions/:session_id` */
export const toRouterPath = (path: string): string => path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

/**
 * Registers every route with its chain: describe → auth → family guard → rate limit →
 * body → validation → idempotency → handler. Public routes skip the three key steps.
 */
export function mountRoutes(router: Router, routes: RouteDefinition[], deps: AppDeps): void {
  const compile = createValidatorFactory();
  for (const route of routes) {
    const chain: Middleware[] = [describe(route)];
    if (route.family !== PUBLIC_FAMILY) {
      chain.push(authenticate(deps), guardFamily(route.family), rateLimit(deps));
    }
    if (route.request?.body) chain.push(jsonBody());
    chain.push(validate(route, compile));
    if (route.idempotent) chain.push(idempotency(deps, route.operationId));
    chain.push(handle(route, deps));
    const path = route.routerPath ?? toRouterPath(route.path);
    router.register(path, [route.method], chain, { name: route.operationId });
  }
}

function describe(route: RouteDefinition): Middleware {
  return async (ctx, next) => {
    ctx.state.route = route;
    await next();
  };
}

function validate(
  route: RouteDefinition,
  compile: ReturnType<typeof createValidatorFactory>,
): Middleware {
  const request = route.request ?? {};
  const params = request.params ? compile(request.params, 'path') : undefined;
  const query = request.query ? compile(request.query, 'query') : undefined;
  const body = request.body ? compile(request.body.schema, 'body') : undefined;
  const bodyRequired = request.body?.required ?? true;
  return async (ctx, next) => {
    const issues: ValidationIssue[] = [];
    const run = (validator: InputValidator | undefined, value: unknown): unknown => {
      if (!validator) return value;
      const result = validator(value);
      issues.push(...result.issues);
      return result.value;
    };
    const validatedParams = run(params, { ...(ctx.params as Record<string, string>) });
    const validatedQuery = run(query, lastValues(ctx.query));
    let validatedBody: unknown = undefined;
    if (body) {
      const present = ctx.state.hasBody === true;
      if (present) validatedBody = run(body, ctx.request.body);
      else if (bodyRequired) issues.push({ loc: ['body'], msg: 'Field required', type: 'missing' });
    }
    if (issues.length > 0) throw validationError(issues);
    ctx.state.validated = { params: validatedParams, query: validatedQuery, body: validatedBody };
    await next();
  };
}

/** Repeated query parameters: the last one counts, as in FastAPI for scalar parameters. */
function lastValues(query: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value[value.length - 1] : value;
  }
  return out;
}

function handle(route: RouteDefinition, deps: AppDeps): Middleware {
  return async (ctx) => {
    const validated = ctx.state.validated as {
      params: Record<string, string>;
      query: Record<string, unknown>;
      body: unknown;
    };
    const request: RouteRequest = {
      body: validated.body,
      query: validated.query,
      params: validated.params,
      auth: ctx.state.auth as AuthContext | undefined,
      requestId: ctx.state.requestId as string,
      clientIp: ctx.ip,
      ctx,
    };
    const result = await route.handler(request, deps);
    ctx.status = result.status ?? 200;
    if (result.headers) ctx.set(result.headers);
    if (result.raw) {
      ctx.type = result.raw.contentType;
      ctx.body = result.raw.body;
    } else if (result.bare !== undefined) {
      ctx.body = result.bare;
    } else {
      ctx.body = { ok: true, payload: result.payload ?? {} };
    }
  };
}
