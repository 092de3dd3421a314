import type { Context } from 'koa';

/**
 * The request headers the transport reads (content negotiation, the session, the protocol
 * version, a stream's resumption point, and the DNS-rebinding checks). The others (the key
 * among them) stay with the Koa request, which has authenticated it already.
 */
const TRANSPORT_HEADERS = [
  'accept',
  'content-type',
  'host',
  'origin',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
] as const;

/**
 * Hands a Koa request to a handler of web-standard `Request`s and writes the `Response` it
 * answers to the Node response. The body was read by the route's body step already, so the
 * `Request` carries none (the handler is given it parsed), nor any header the transport does
 * not read.
 *
 * An SSE answer (a request that asked for progress: its notifications, then its result) is
 * streamed as it comes; when the client goes away, the stream is cancelled, which ends the
 * transport's side of it. Any other answer is whole when the handler returns it, so it is
 * written in one piece with its length: one write, no chunked framing.
 */
export async function exchange(
  ctx: Context,
  handle: (request: Request) => Promise<Response>,
): Promise<void> {
  const headers: Record<string, string> = {};
  for (const name of TRANSPORT_HEADERS) {
    const value = ctx.req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const request = new Request(`http://${ctx.host || 'localhost'}${ctx.url}`, {
    method: ctx.method,
    headers,
  });
  const response = await handle(request);
  const head: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    head[name] = value;
  });
  const res = ctx.res;
  if (!response.body) {
    res.writeHead(response.status, head).end();
    return;
  }
  if (head['content-type'] !== 'text/event-stream') {
    const body = Buffer.from(await response.arrayBuffer());
    head['content-length'] = String(body.length);
    res.writeHead(response.status, head).end(body);
    return;
  }
  res.writeHead(response.status, head);
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  if (res.destroyed) cancel();
  else res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // Cancelled: the client went away; nothing more can be written.
  }
  res.end();
}
