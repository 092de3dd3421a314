import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { AppDeps } from '../app/deps';
import type { AuthContext } from '../auth/auth-context';
import { PUBLIC_FAMILY } from '../auth/families';
import { NotFound } from '../lib/errors';
import { validationError, type ValidationIssue } from './errors';
import { jsonBody } from './middleware/body';
import { authenticateGate } from './middleware/authenticate';
import { guardFamilyGate } from './middleware/family-guard';
import type { Gate } from './middleware/gate';
import { limitAccessRequestsGate, rateLimitGate } from './middleware/rate-limit';
import { idempotency } from './middleware/idempotency';
import { createResponseChecker, type ResponseChecker } from './response-check';
import { PLAIN_PATH, type RouteDefinition, type RouteRequest } from './route';
import { createValidatorFactory, listedIssues } from '../lib/validation';

/** `/v1/sessions/{session_id}` → `/v1/sessions/:session_id` */
export const toRouterPath = (path: string): string => path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

/**
 * Registers every route with its chain: describe → auth → family guard → rate limit →
 * body → validation → idempotency → handler. Public routes skip the three key steps.
 *
 * A route's chain is one middleware: its steps are gates run in order, and only the body
 * and idempotency steps (which act after the handler too) take a middleware frame of their
 * own. Returns the routes whose path has no parameters, by `METHOD path`, for
 * `directRoutes`, which answers them without the router's per-request matching.
 */
export function mountRoutes(router: Router, routes: RouteDefinition[], deps: AppDeps): DirectTable {
  const compile = createValidatorFactory();
  const checkResponse = deps.config.validateResponses
    ? createResponseChecker(deps.checkedResponses)
    : undefined;
  const direct = new Map<string, RouteChain>();
  for (const route of routes) {
    const steps: Step[] = [describe(route)];
    if (route.family !== PUBLIC_FAMILY) {
      steps.push(authenticateGate(deps), guardFamilyGate(route.family), rateLimitGate(deps));
    }
    if (route.request?.body) steps.push({ around: jsonBody(route.request.body.refused) });
    steps.push(validate(route, compile));
    if (route.addressLimited) steps.push(limitAccessRequestsGate(deps));
    if (route.idempotent) {
      steps.push({ around: idempotency(deps, route.operationId, route.secretFields ?? []) });
    }
    const path = route.routerPath ?? toRouterPath(route.path);
    const chain = chainOf(steps, handle(route, deps, checkResponse));
    router.register(path, [route.method], chain, { name: route.operationId });
    if (PLAIN_PATH.test(path)) direct.set(`${route.method} ${path}`, chain);
  }
  return directTable(router, direct);
}

/** A gate, or a middleware that also acts after the rest of the chain has run. */
type Step = Gate | { around: Middleware };

/** A route's whole chain: it answers, and never calls the next middleware. */
type RouteChain = (ctx: Context) => Promise<void>;

/** The steps as one middleware; the chain ends with `last`. */
function chainOf(steps: Step[], last: Gate): RouteChain {
  let rest = last;
  let gates: Gate[] = [];
  for (let i = steps.length - 1; i >= 0; i -= 1) {
    const step = steps[i];
    if (typeof step === 'function') {
      gates.unshift(step);
      continue;
    }
    const tail = inOrder(gates, rest);
    const around = step.around;
    rest = (ctx) => around(ctx, () => tail(ctx)) as Promise<void>;
    gates = [];
  }
  return inOrder(gates, rest);
}

/** Runs `gates` one after the other (waiting only for those that return a promise), then `last`. */
function inOrder(gates: Gate[], last: Gate): RouteChain {
  return async (ctx) => {
    for (const gate of gates) {
      const pending = gate(ctx);
      if (pending) await pending;
    }
    await last(ctx);
  };
}

/** Chains by method, then path (looked up without building a key per request). */
export type DirectTable = Map<string, Map<string, RouteChain>>;

/**
 * Keeps the candidates (`METHOD path` → chain, paths without parameters) for which the
 * router would run that chain for exactly that method and path: its layer is the first to
 * match them (a HEAD is answered by the GET route). Any other path, and any other spelling
 * of these (case, trailing slash), still goes through the router, so what answers a
 * request is the same either way.
 */
function directTable(router: Router, candidates: Map<string, RouteChain>): DirectTable {
  const table: DirectTable = new Map();
  for (const [key, chain] of candidates) {
    const [method, path] = key.split(' ');
    for (const asked of method === 'GET' ? ['GET', 'HEAD'] : [method]) {
      const first = router.match(path, asked).pathAndMethod[0];
      if (first?.stack.length !== 1 || first.stack[0] !== chain) continue;
      let paths = table.get(asked);
      if (!paths) {
        paths = new Map<string, RouteChain>();
        table.set(asked, paths);
      }
      paths.set(path, chain);
    }
  }
  return table;
}

/**
 * Answers the routes of `mountRoutes`' direct table without the router; everything else
 * goes on to the router. Sets `ctx.params` as the router would for a path without any.
 */
export function directRoutes(table: DirectTable): Middleware {
  return (ctx, next) => {
    const chain = table.get(ctx.method)?.get(ctx.path);
    if (!chain) return next();
    ctx.params = {};
    return chain(ctx);
  };
}

function describe(route: RouteDefinition): Gate {
  return (ctx) => {
    ctx.state.route = route;
  };
}

function validate(
  route: RouteDefinition,
  compile: ReturnType<typeof createValidatorFactory>,
): Gate {
  const request = route.request ?? {};
  const params = request.params ? compile(request.params, 'path') : undefined;
  const query = request.query ? compile(request.query, 'query') : undefined;
  const body = request.body
    ? compile(request.body.schema, 'body', { storedKeys: request.body.stored !== false })
    : undefined;
  const bodyRequired = request.body?.required ?? true;
  return (ctx) => {
    const rawParams = { ...(ctx.params as Record<string, string>) };
    let validatedParams = rawParams;
    if (params) {
      const checked = params(rawParams);
      // A path id the server never issued names nothing: 404, whatever its shape (422
      // stays for bodies and queries, where the caller chose the value).
      if (checked.issues.length > 0) throw unknownPathParam(checked.issues[0], rawParams);
      validatedParams = checked.value as Record<string, string>;
    }
    let issues: ValidationIssue[] | undefined;
    // No query string: the same empty object `lastValues` would make, without parsing.
    let validatedQuery: unknown = ctx.querystring === '' ? {} : lastValues(ctx.query);
    if (query) {
      const checked = query(validatedQuery);
      validatedQuery = checked.value;
      if (checked.issues.length > 0) issues = checked.issues;
    }
    let validatedBody: unknown = undefined;
    if (body) {
      if (ctx.state.hasBody === true) {
        const checked = body(ctx.request.body);
        validatedBody = checked.value;
        if (checked.issues.length > 0) issues = (issues ?? []).concat(checked.issues);
      } else if (bodyRequired) {
        (issues ??= []).push({ loc: ['body'], msg: 'Field required', type: 'missing' });
      }
    }
    if (issues) throw validationError(listedIssues(issues));
    ctx.state.validated = { params: validatedParams, query: validatedQuery, body: validatedBody };
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

function handle(route: RouteDefinition, deps: AppDeps, checkResponse?: ResponseChecker): Gate {
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
    if (result.answered) {
      ctx.respond = false;
      return;
    }
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
