import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createUnzip } from 'node:zlib';
import type { Context, Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { jsonTextIssues } from '../../lib/json-text';
import { Invalid, type ValidationIssue } from '../../lib/errors';
import { listedIssues } from '../../lib/validation';
import { ApiError, validationError } from '../errors';

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
 *
 * koa-body parses; it decodes a bad UTF-8 sequence as U+FFFD, silently, so the bytes it
 * reads are watched beside it with a strict decoder. A compressed body is decompressed here
 * first and handed to koa-body as an identity one, so its bytes are watched the same way.
 */
export function jsonBody(refused?: BodyRefusal): Middleware {
  const parse = koaBody({
    json: true,
    jsonLimit: MAX_BODY_BYTES,
    jsonStrict: false,
    includeUnparsed: true, // the text it parsed, as `ctx.request.rawBody`
    text: false,
    urlencoded: false,
    multipart: false,
    parsedMethods: [
      HttpMethodEnum.POST,
      HttpMethodEnum.PUT,
      HttpMethodEnum.PATCH,
      HttpMethodEnum.DELETE,
    ],
  });
  const read = async (ctx: Context): Promise<void> => {
    const length = ctx.request.length;
    const chunked = ctx.get('Transfer-Encoding') !== '';
    if (!chunked && !length) {
      ctx.state.hasBody = false;
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
    const original = ctx.req;
    const source = jsonSource(original, ctx.get('Content-Encoding'));
    const utf8 = strictUtf8(source.stream);
    ctx.req = source.stream; // what koa-body reads
    try {
      await parse(ctx, async () => {});
    } catch (error) {
      if ((error as { status?: number }).status === 413) throw tooLarge();
      // The parser refuses `__proto__` itself; the text it could not take says where.
      const { body: text, message } = error as { body?: unknown; message?: string };
      const poisoned = typeof text === 'string' && /prototype property/.test(message ?? '');
      const issues = poisoned ? jsonTextIssues(text, MAX_BODY_DEPTH) : [];
      if (issues.length > 0) throw validationError(listedIssues(issues));
      throw jsonInvalid(
        'JSON decode error',
        error instanceof Error ? error.message : 'invalid JSON',
      );
    } finally {
      ctx.req = original;
      source.close();
    }
    if (!utf8.valid()) {
      throw jsonInvalid('JSON decode error: the body is not valid UTF-8', 'invalid UTF-8');
    }
    const text = (ctx.request as { rawBody?: unknown }).rawBody;
    const issues = typeof text === 'string' ? jsonTextIssues(text, MAX_BODY_DEPTH) : [];
    if (issues.length > 0) throw validationError(listedIssues(issues));
    ctx.state.hasBody = true;
  };
  if (!refused) {
    return async (ctx, next) => {
      await read(ctx);
      await next();
    };
  }
  return async (ctx, next) => {
    try {
      await read(ctx);
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      refused(ctx, error.issues);
      return;
    }
    await next();
  };
}

/**
 * Answers a body the body layer refused (a 422 otherwise) in a route's own protocol: the
 * issues are the 422's, each with its path. 413 and 415 stay HTTP errors.
 */
export type BodyRefusal = (ctx: Context, issues: ValidationIssue[]) => void;

/** A request as koa-body is to read it: the plain JSON type, and decompressed if it was not. */
interface JsonSource {
  stream: IncomingMessage;
  close(): void;
}

function jsonSource(req: IncomingMessage, contentEncoding: string): JsonSource {
  const encoding = contentEncoding.trim().toLowerCase() || 'identity';
  // koa-body's parser knows a few JSON types by name: it is handed the plain type
  // (charset and other parameters kept).
  req.headers['content-type'] = (req.headers['content-type'] ?? '').replace(
    /^[^;]*/,
    'application/json',
  );
  if (encoding === 'identity') return { stream: req, close() {} };
  const decompress = DECOMPRESSORS[encoding];
  if (!decompress) {
    throw new ApiError(
      'unsupported_media_type',
      `Content-Encoding ${contentEncoding} is not supported: send identity, gzip, deflate or br`,
    );
  }
  const decompressor = decompress();
  req.pipe(decompressor);
  // Read as an identity body of unknown length: the limit then counts decompressed bytes,
  // so a small bomb cannot inflate past it.
  const { 'content-length': _length, ...identity } = req.headers;
  const stream = Object.assign(decompressor, {
    headers: { ...identity, 'content-encoding': 'identity' },
  }) as unknown as IncomingMessage;
  return {
    stream,
    close() {
      // A refused compressed body leaves the request piped into a decompressor no one
      // reads: unpiped, Node discards the rest of the request as it does any unread body.
      req.unpipe(decompressor);
      decompressor.destroy();
    },
  };
}

/**
 * Watches a stream's bytes as they flow to the parser and tells whether they were UTF-8
 * (a fatal decoder over the same chunks; nothing is buffered).
 */
function strictUtf8(stream: NodeJS.ReadableStream): { valid(): boolean } {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let valid = true;
  const onData = (chunk: Buffer): void => {
    if (!valid) return;
    try {
      decoder.decode(chunk, { stream: true });
    } catch {
      valid = false;
    }
  };
  stream.on('data', onData);
  return {
    valid() {
      stream.off('data', onData);
      if (!valid) return false;
      try {
        decoder.decode();
      } catch {
        valid = false;
      }
      return valid;
    },
  };
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
