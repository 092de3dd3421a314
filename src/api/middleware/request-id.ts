import type { Middleware } from 'koa';
import { newId } from '../../lib/ids';

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a well-formed incoming X-Request-Id, or mints one; every response carries it. */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const id = VALID_REQUEST_ID.test(incoming) ? incoming : newId('req');
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    await next();
  };
}
