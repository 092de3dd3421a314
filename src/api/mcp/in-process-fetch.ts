import { ServerResponse, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type Koa from 'koa';
import type { Context } from 'koa';

type Dispatch = (ctx: Context) => Promise<void>;
const dispatchers = new WeakMap<Koa, Dispatch>();

/** The app's whole middleware chain, composed once per app (as `app.callback()` does). */
function dispatcherOf(app: Koa): Dispatch {
  let dispatch = dispatchers.get(app);
  if (!dispatch) {
    const { compose, middleware } = app as unknown as {
      compose: (stack: unknown[]) => Dispatch;
      middleware: unknown[];
    };
    dispatch = compose(middleware);
    dispatchers.set(app, dispatch);
  }
  return dispatch;
}

/**
 * `fetch` into the api's own Koa app, without a socket: each request runs through the
 * app's whole middleware chain (request id, observe and its request-ledger row, the error
 * handler, the route's chain: key, family, rate limit and quota, body, validation,
 * idempotency, handler) exactly as one that came over HTTP, and its answer is read off the
 * context. Only the HTTP parsing and the network are skipped: what `/mcp` tool calls cost
 * beyond the same requests made directly is then the protocol's own work.
 *
 * `clientIp` is the address the ledger records for these requests: the agent's, as the
 * `/mcp` request that carries them reached the api.
 */
export function inProcessFetch(
  app: Koa,
  clientIp: string,
): (request: Request) => Promise<Response> {
  const dispatch = dispatcherOf(app);
  return async (request) => {
    const url = new URL(request.url);
    const body = request.body === null ? null : Buffer.from(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (body) headers['content-length'] = String(body.length);
    headers['host'] ??= url.host;
    const req = Object.assign(Readable.from(body ? [body] : []), {
      method: request.method,
      url: `${url.pathname}${url.search}`,
      headers,
      httpVersion: '1.1',
      httpVersionMajor: 1,
      httpVersionMinor: 1,
      socket: { remoteAddress: clientIp, encrypted: false },
    }) as unknown as IncomingMessage;
    const res = new ServerResponse(req);
    const ctx = app.createContext(req, res);
    await dispatch(ctx);
    return answerOf(ctx, res);
  };
}

/** The context's answer as a fetch `Response` (the api's bodies are JSON or text). */
function answerOf(ctx: Context, res: ServerResponse): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.getHeaders())) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [String(value)]) headers.append(name, one);
  }
  headers.delete('content-length');
  const status = ctx.status;
  const body: unknown = ctx.body;
  if (status === 204 || status === 304 || body === null || body === undefined) {
    return new Response(null, { status, headers });
  }
  const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return new Response(text, { status, headers });
}
