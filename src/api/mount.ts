import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppDeps } from '../app/deps';
import type { AuthContext } from '../auth/auth-context';
import { PUBLIC_FAMILY } from '../auth/families';
import { NotFound } from '../lib/errors';
import { validationError, type ValidationIssue } from './errors';
import { jsonBody } from './middleware/body';
import { authenticate, guardFamily, limitAccessRequests, rateLimit } from './middleware/governance';
import { idempotency } from './middleware/idempotency';
import { createResponseChecker, type ResponseChecker } from './response-check';
import type { RouteDefinition, RouteRequest } from './route';
import { createValidatorFactory, type InputValidator } from '../lib/validation';

/** `/v1/sessions/{session_id}` → `/v1/sessions/:session_id` */
export const toRouterPath = (path: string): string => path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

/**
 * Registers every route with its chain: describe → auth → family guard → rate limit →
 * body → validation → idempotency → handler. Public routes skip the three key steps.
 */
export function mountRoutes(router: Router, routes: RouteDefinition[], deps: AppDeps): void {
  const compile = createValidatorFactory();
  const checkResponse = deps.config.validateResponses
    ? createResponseChecker(deps.checkedResponses)
    : undefined;
  for (const route of routes) {
    const chain: Middleware[] = [describe(route)];
    if (route.family !== PUBLIC_FAMILY) {
      chain.push(authenticate(deps), guardFamily(route.family), rateLimit(deps));
    }
    if (route.request?.body) chain.push(jsonBody());
    chain.push(validate(route, compile));
    if (route.addressLimited) chain.push(limitAccessRequests(deps));
    if (route.idempotent) chain.push(idempotency(deps, route.operationId));
    chain.push(handle(route, deps, checkResponse));
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
    const rawParams = { ...(ctx.params as Record<string, string>) };
    const checkedParams = params?.(rawParams);
    const validatedParams = checkedParams?.value ?? rawParams;
    const badParam = checkedParams?.issues[0];
    // A path id the server never issued names nothing: 404, whatever its shape (422 stays
    // for bodies and queries, where the caller chose the value).
    if (badParam) throw unknownPathParam(badParam, rawParams);
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

function unknownPathParam(issue: ValidationIssue, params: Record<string, string>): NotFound {
  const name = String(issue.loc[1] ?? 'path');
  const value = params[name] ?? '';
  return new NotFound(`${name} ${JSON.stringify(value)} not found: no such identifier was issued`, {
    extra: { parameter: name },
  });
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

function handle(
  route: RouteDefinition,
  deps: AppDeps,
  checkResponse?: ResponseChecker,
): Middleware {
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
    const status = result.status ?? 200;
    if (checkResponse && !result.raw) {
      checkResponse(route, status, result.bare ?? { ok: true, payload: result.payload ?? {} });
    }
    ctx.status = status;
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
