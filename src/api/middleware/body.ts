import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { ApiError, validationError } from '../errors';

/** Bodies are JSON only, at most 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * Deepest nesting of objects and arrays in a body (an event payload may nest 32 inside its
 * envelope). Past it a body is refused before any code walks it recursively (hashing for
 * idempotency, validation, commands), which a few thousand levels would overflow.
 */
export const MAX_BODY_DEPTH = 64;

/** A container on the walk: how deep it is, and how it was reached (for the error's path). */
interface Visit {
  value: object;
  depth: number;
  key: string | number;
  parent: Visit | undefined;
}

/** The path to the first container nested deeper than `MAX_BODY_DEPTH`, or undefined. */
function tooDeepAt(body: unknown): (string | number)[] | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  // Iterative, and no path built unless one is too deep: this runs on every body.
  const stack: Visit[] = [{ value: body, depth: 0, key: '', parent: undefined }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    if (visit.depth >= MAX_BODY_DEPTH) {
      const path: (string | number)[] = [];
      for (let at: Visit | undefined = visit; at?.parent; at = at.parent) path.unshift(at.key);
      return path;
    }
    const isArray = Array.isArray(visit.value);
    for (const [key, child] of Object.entries(visit.value)) {
      if (child !== null && typeof child === 'object') {
        stack.push({
          value: child as object,
          depth: visit.depth + 1,
          key: isArray ? Number(key) : key,
          parent: visit,
        });
      }
    }
  }
  return undefined;
}

/**
 * Reads a JSON body: 415 for another media type or an unknown `Content-Encoding`, 413 past 1 MiB (checked before reading
 * when Content-Length says so), 422 `json_invalid` for malformed JSON, 422 `too_deep` past
 * `MAX_BODY_DEPTH` levels. Runs after auth, so
 * an anonymous caller cannot make the server read a large body.
 */
export function jsonBody(): Middleware {
  const parse = koaBody({
    json: true,
    jsonLimit: MAX_BODY_BYTES,
    jsonStrict: false,
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
  return async (ctx, next) => {
    const length = ctx.request.length;
    const chunked = ctx.get('Transfer-Encoding') !== '';
    if (!chunked && !length) {
      ctx.state.hasBody = false;
      await next();
      return;
    }
    if (!ctx.is('application/json', '+json')) {
      throw new ApiError(
        'unsupported_media_type',
        `request bodies must be application/json, got ${ctx.get('Content-Type') || 'no Content-Type'}`,
      );
    }
    if (length && length > MAX_BODY_BYTES) throw tooLarge();
    // Every `application/*+json` is JSON (`application/problem+json`, …); the parser only
    // knows a few by name, so it is handed the plain type (charset and other parameters kept).
    const type = ctx.get('Content-Type');
    if (!ctx.is('application/json')) {
      ctx.request.headers['content-type'] = type.replace(/^[^;]*/, 'application/json');
    }
    // The parser decodes an invalid UTF-8 sequence as U+FFFD, silently: the bytes are read
    // beside it and checked strictly (uncompressed bodies; a compressed one is checked by
    // nothing but its JSON).
    const identity = ['', 'identity'].includes(ctx.get('Content-Encoding'));
    const utf8 = identity ? strictUtf8(ctx.req) : undefined;
    try {
      await parse(ctx, async () => {});
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status === 413) throw tooLarge();
      if (status === 415) {
        throw new ApiError(
          'unsupported_media_type',
          `Content-Encoding ${ctx.get('Content-Encoding') || '(none)'} is not supported: send identity, gzip, deflate or br`,
        );
      }
      const message = error instanceof Error ? error.message : 'invalid JSON';
      throw validationError([
        { loc: ['body'], msg: 'JSON decode error', type: 'json_invalid', ctx: { error: message } },
      ]);
    }
    if (utf8 && !utf8.valid()) {
      throw validationError([
        {
          loc: ['body'],
          msg: 'JSON decode error: the body is not valid UTF-8',
          type: 'json_invalid',
          ctx: { error: 'invalid UTF-8' },
        },
      ]);
    }
    const deep = tooDeepAt(ctx.request.body);
    if (deep) {
      throw validationError([
        {
          loc: ['body', ...deep],
          msg: `JSON should nest at most ${MAX_BODY_DEPTH} levels of objects and arrays`,
          type: 'too_deep',
          ctx: { max_depth: MAX_BODY_DEPTH },
        },
      ]);
    }
    ctx.state.hasBody = true;
    await next();
  };
}

/**
 * Watches a request's bytes as they flow to the parser and tells whether they were UTF-8
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

const tooLarge = (): ApiError =>
  new ApiError('payload_too_large', `request body exceeds ${MAX_BODY_BYTES} bytes`);
