import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createUnzip } from 'node:zlib';
import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { jsonTextIssues } from '../../lib/json-text';
import { listedIssues } from '../../lib/validation';
import { ApiError, validationError } from '../errors';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body, once `jsonBody` has read one (validation reads it). */
    body?: unknown;
  }
}

/** Bodies are JSON only, at most 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * Deepest nesting of objects and arrays in a body (an event payload may nest 32 inside its
 * envelope). Past it a body is refused before any code walks it recursively (hashing for
 * idempotency, validation, commands), which a few thousand levels would overflow.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * Reads a JSON body: 415 for another media type or an unknown `Content-Encoding`, 413 past
 * 1 MiB (checked before reading when Content-Length says so, and on the decompressed bytes
 * otherwise), 422 `json_invalid` for bytes that are not UTF-8 (compressed or not) or text
 * that is not JSON, and 422 naming the field for what JSON allows but the service would
 * change or must not take (`jsonTextIssues`: numbers a double cannot hold exactly, lone
 * surrogates, `__proto__`, nesting past `MAX_BODY_DEPTH`). Runs after auth, so an anonymous
 * caller cannot make the server read a large body.
 */
export function jsonBody(): Middleware {
  return async (ctx, next) => {
    const length = ctx.request.length;
    const chunked = ctx.get('Transfer-Encoding') !== '';
    if (!chunked && !length) {
      ctx.state.hasBody = false;
      await next();
      return;
    }
    // Every `application/*+json` is JSON (`application/problem+json`, …).
    if (!ctx.is('application/json', '+json')) {
      throw new ApiError(
        'unsupported_media_type',
        `request bodies must be application/json, got ${ctx.get('Content-Type') || 'no Content-Type'}`,
      );
    }
    if (length && length > MAX_BODY_BYTES) throw tooLarge();
    const text = await readText(ctx.req, ctx.get('Content-Encoding'));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw jsonInvalid(
        'JSON decode error',
        error instanceof Error ? error.message : 'invalid JSON',
      );
    }
    const issues = jsonTextIssues(text, MAX_BODY_DEPTH);
    if (issues.length > 0) throw validationError(listedIssues(issues));
    ctx.request.body = body;
    ctx.state.hasBody = true;
    await next();
  };
}

/**
 * The body's text: decompressed (gzip, deflate, br) and decoded as strict UTF-8 (a decoder
 * that replaced a bad sequence with U+FFFD would store text the client never sent).
 */
async function readText(req: IncomingMessage, contentEncoding: string): Promise<string> {
  const encoding = contentEncoding.trim().toLowerCase() || 'identity';
  const identity = encoding === 'identity';
  let stream: Readable = req;
  let decompressor: Transform | undefined;
  if (!identity) {
    const decompress = DECOMPRESSORS[encoding];
    if (!decompress) {
      throw new ApiError(
        'unsupported_media_type',
        `Content-Encoding ${contentEncoding} is not supported: send identity, gzip, deflate or br`,
      );
    }
    decompressor = decompress();
    stream = req.pipe(decompressor);
  }
  let bytes: Buffer;
  try {
    // The limit counts decompressed bytes: a small bomb cannot inflate past it.
    bytes = await getRawBody(stream, {
      limit: MAX_BODY_BYTES,
      ...(identity && req.headers['content-length']
        ? { length: req.headers['content-length'] }
        : {}),
    });
  } catch (error) {
    if ((error as { type?: string }).type === 'entity.too.large') throw tooLarge();
    throw jsonInvalid(
      'JSON decode error',
      error instanceof Error ? error.message : 'unreadable body',
    );
  } finally {
    // A refused compressed body leaves the request piped into a decompressor no one reads:
    // unpiped, Node discards the rest of the request as it does any unread body.
    if (decompressor) {
      req.unpipe(decompressor);
      decompressor.destroy();
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw jsonInvalid('JSON decode error: the body is not valid UTF-8', 'invalid UTF-8');
  }
}

/** What `Content-Encoding` may say; `deflate` is zlib-wrapped, `createUnzip` also reads gzip. */
const DECOMPRESSORS: Record<string, () => Transform> = {
  gzip: () => createUnzip(),
  deflate: () => createUnzip(),
  br: () => createBrotliDecompress(),
};

const jsonInvalid = (msg: string, error: string) =>
  validationError([{ loc: ['body'], msg, type: 'json_invalid', ctx: { error } }]);

const tooLarge = (): ApiError =>
  new ApiError('payload_too_large', `request body exceeds ${MAX_BODY_BYTES} bytes`);
