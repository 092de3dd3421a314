import type { Context } from 'koa';

/**
 * One step of a route's chain that either passes (returns, or resolves) or throws; the
 * mount layer runs a route's steps in order in one middleware (src/api/mount.ts), so a
 * step costs no middleware frame of its own on the hot path. One file per gate:
 * `authenticate.ts`, `family-guard.ts`, `rate-limit.ts`.
 */
export type Gate = (ctx: Context) => void | Promise<void>;
