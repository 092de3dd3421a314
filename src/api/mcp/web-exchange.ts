import type { Context } from 'koa';

/**
 * Hands a Koa request to a handler of web-standard `Request`s and writes the `Response` it
 * answers to the Node response, streaming its body as it comes (an MCP answer is an SSE
 * stream: progress notifications, then the result). The body was read by the route's body
 * step already, so the `Request` carries none; the handler is given it parsed. When the
 * client goes away, the stream is cancelled, which ends the transport's side of it.
 */
export async function exchange(
  ctx: Context,
  handle: (request: Request) => Promise<Response>,
): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const gone = new AbortController();
  ctx.res.once('close', () => gone.abort());
  const request = new Request(`http://${ctx.host || 'localhost'}${ctx.url}`, {
    method: ctx.method,
    headers,
    signal: gone.signal,
  });
  const response = await handle(request);
  const head: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    head[name] = value;
  });
  ctx.res.writeHead(response.status, head);
  if (!response.body) {
    ctx.res.end();
    return;
  }
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  gone.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      ctx.res.write(value);
    }
  } catch {
    // Cancelled: the client went away; nothing more can be written.
  }
  ctx.res.end();
}
