import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import { newId } from '../lib/ids';
import { ERROR_STATUS, type ErrorCode } from './errors';

/**
 * Largest request line and headers together, in bytes (Node's default, named here so it is
 * ours and not a command-line flag's): past it, 431.
 */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * The api's HTTP server over `app` (`src/main.ts`, and the test apps, so tests cover it).
 * What Node's parser refuses before the app could see a request (headers past
 * `MAX_HEADER_BYTES`, a method it does not know, a malformed request line or header) is
 * answered here in the one JSON error shape, with an `X-Request-Id`, instead of Node's bare
 * status line.
 */
export function createHttpServer(app: Koa): Server {
  const handle = app.callback();
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    void handle(req, res);
  });
  server.on('clientError', answerClientError);
  return server;
}

/** Node's parse error: `code` is llhttp's (`HPE_…`) or Node's own (`ERR_HTTP_…`). */
type ClientError = Error & { code?: string };

/** What Node's own reply would have been, as one of our codes, and what to say. */
function refusalOf(error: ClientError): { code: ErrorCode; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        code: 'request_header_fields_too_large',
        message: `the request line and headers exceed ${MAX_HEADER_BYTES} bytes (a long query string counts)`,
      };
    case 'HPE_INVALID_METHOD':
      return {
        code: 'not_implemented',
        message: 'the request method is not one this server knows (an HTTP method, in capitals)',
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'payload_too_large', message: 'chunk extensions too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: 'the request was not received in time' };
    default:
      return {
        code: 'bad_request',
        message: `malformed HTTP request: ${(error.message || 'parse error').replace(/[^\x20-\x7e]/g, '?')}`,
      };
  }
}

/**
 * Answers a request Node's parser refused, and closes the connection (the parser cannot go
 * on after an error). Nothing is written when a response of this connection has begun
 * already (a pipelined request): the client would read it as part of that response.
 */
function answerClientError(error: ClientError, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const { code, message } = refusalOf(error);
  const status = ERROR_STATUS[code];
  const requestId = newId('req');
  const body = JSON.stringify({
    ok: false,
    error: { code, message, request_id: requestId },
    detail: message,
  });
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
  // The client closes once it has read the answer; one that does not is let go soon.
  setTimeout(() => socket.destroy(), CLOSE_AFTER_MS).unref();
}

/** How long a refused connection may stay open for its answer to be read. */
const CLOSE_AFTER_MS = 2000;
