import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Tracer,
} from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { Middleware } from 'koa';
import type { RouteDefinition } from '../route';

/**
 * One server span per request, named by the semantic conventions for HTTP servers:
 * `POST /v1/external-actions/{action_id}/approve` once a route matched (`http.route` is the route's
 * template, never the path with its ids), only the method otherwise. A `traceparent` header
 * continues the caller's trace. Everything the request does (MongoDB commands, Temporal
 * calls) runs inside the span's context and becomes its children.
 *
 * Our own middleware rather than the http and Koa instrumentations: those patch modules as
 * they are loaded, which needs a preload before anything imports them, while this one is
 * mounted by `createApp` from the app context, like every other middleware, and only when
 * traces are on.
 */
export function traceRequests(tracer: Tracer): Middleware {
  // Host headers seen (a deployment answers to a few names), parsed once each; bounded, as
  // the header is the client's to choose.
  const hosts = new Map<string, [string, number | undefined]>();
  return async (ctx, next) => {
    // No traceparent (most requests): nothing to continue, no propagator call, a root span.
    const parent = ctx.headers['traceparent']
      ? propagation.extract(ROOT_CONTEXT, ctx.headers)
      : ROOT_CONTEXT;
    const method = ctx.method;
    let server = hosts.get(ctx.host);
    if (!server) {
      server = hostAndPort(ctx.host);
      if (hosts.size < 64) hosts.set(ctx.host, server);
    }
    const attributes: Attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      [ATTR_URL_PATH]: ctx.path,
      [ATTR_URL_SCHEME]: ctx.protocol,
      [ATTR_SERVER_ADDRESS]: server[0],
      [ATTR_NETWORK_PROTOCOL_VERSION]: ctx.req.httpVersion,
    };
    if (server[1]) attributes[ATTR_SERVER_PORT] = server[1];
    if (ctx.ip) attributes[ATTR_CLIENT_ADDRESS] = ctx.ip;
    const userAgent = ctx.headers['user-agent'];
    if (userAgent) attributes[ATTR_USER_AGENT_ORIGINAL] = userAgent;
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes }, parent);
    try {
      await context.with(trace.setSpan(parent, span), next);
    } catch (error) {
      // The error handler answers every error itself; one that passes it is a crash.
      span.recordException(error as Error);
      span.setAttribute(ATTR_ERROR_TYPE, (error as Error).name ?? 'Error');
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      const route = ctx.state.route as RouteDefinition | undefined;
      if (route) {
        span.setAttributes({
          [ATTR_HTTP_ROUTE]: route.path,
          [ATTR_HTTP_RESPONSE_STATUS_CODE]: ctx.status,
        });
        span.updateName(`${method} ${route.path}`);
      } else span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, ctx.status);
      // Server spans are errors on 5xx only: a 4xx is the client's mistake, answered well.
      if (ctx.status >= 500) {
        span.setAttribute(ATTR_ERROR_TYPE, String(ctx.status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    }
  };
}

function hostAndPort(host: string): [string, number | undefined] {
  const match = /^(.*?)(?::(\d+))?$/.exec(host);
  const port = match?.[2] ? Number(match[2]) : undefined;
  return [match?.[1] || host, port];
}
