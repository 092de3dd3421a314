import type { Static, TSchema } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { AppDeps } from '../app/deps';
import type { AuthContext } from '../auth/auth-context';
import type { RouteFamily } from '../auth/families';
import type { BodyRefusal } from './middleware/body';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** The caller, known on every route outside the `public` family. */
export type AuthOf<F extends RouteFamily> = F extends 'public'
  ? AuthContext | undefined
  : AuthContext;

/** What a handler sees: validated input plus who is calling. */
export interface RouteRequest<
  TBody = unknown,
  TQuery = Record<string, unknown>,
  TParams = Record<string, string>,
  TAuth = AuthContext | undefined,
> {
  body: TBody;
  query: TQuery;
  params: TParams;
  auth: TAuth;
  requestId: string;
  clientIp: string;
  ctx: Context;
}

/** What a handler returns; the mount layer shapes the envelope. */
export interface RouteResult {
  status?: number;
  /** Wrapped as `{ok: true, payload}` unless `bare` is set. */
  payload?: unknown;
  /** Sent as is (the access grant, system routes). */
  bare?: unknown;
  headers?: Record<string, string>;
  /** Raw bytes with their content type (artifact `/raw`, docs assets). */
  raw?: { body: Buffer | string; contentType: string };
  /** The handler wrote the response itself (a stream, `/mcp`): nothing more is sent. */
  answered?: boolean;
}

/**
 * An OpenAPI link: how this answer's values feed another operation (what stateful testing
 * follows). Values are runtime expressions, e.g. `$response.body#/payload/session_id`.
 */
export interface RouteLink {
  /** The operation the answer leads to. */
  operationId: string;
  description?: string;
  /** Its path or query parameters by name. */
  parameters?: Record<string, string>;
  /** Fields of its body; expressions inside are evaluated, the rest is generated. */
  requestBody?: Record<string, unknown>;
}

export interface RouteResponseDoc {
  description: string;
  schema?: TSchema;
  /** Links by name (a success answer's only). */
  links?: Record<string, RouteLink>;
}

/** Everything but the handler: what routing, auth, validation and OpenAPI read. */
interface RouteShape<F extends RouteFamily, P, Q, B> {
  /** `family.verb`, unique across the API; also the OpenAPI operationId. */
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style path template: `/v1/sessions/{session_id}`. */
  path: string;
  /** Path as given to the router when it differs (multi-segment parameters). */
  routerPath?: string;
  family: F;
  summary: string;
  description?: string;
  request?: {
    params?: P;
    query?: Q;
    /** `name` names the request body as an OpenAPI component (SessionStepRequest, ...). */
    body?: {
      name: string;
      schema: B;
      required?: boolean;
      /**
       * False for a body that is read and never stored (a rendering): keys MongoDB refuses
       * (`.`, NUL, a leading `$`) are then fine.
       */
      stored?: boolean;
      /** Answers a body the body layer refuses in the route's own protocol (JSON-RPC on `/mcp`). */
      refused?: BodyRefusal;
    };
  };
  /**
   * Responses by status: the successes, and (without a schema) any error status the route
   * answers beyond the common ones the document adds to every route, e.g. 404 for an id in
   * the body or 409 for a state.
   */
  responses: Record<number, RouteResponseDoc>;
  /** Accepts `Idempotency-Key` (POSTs that create something). */
  idempotent?: boolean;
  /**
   * Fields of the success answer's payload that carry a secret shown once (a new API key):
   * the stored idempotent answer never holds them, and a replay answers them redacted.
   */
  secretFields?: readonly string[];
  /** Limited per client address (the public access request). */
  addressLimited?: boolean;
  /** Not in the OpenAPI document (docs assets). */
  hidden?: boolean;
}

type StaticOr<S, Fallback> = S extends TSchema ? Static<S> : Fallback;

/** A router path that matches only itself (no parameter, group or wildcard syntax). */
export const PLAIN_PATH = /^[A-Za-z0-9/_.~-]+$/;

/** A route as the mount layer and the OpenAPI generator see it (types erased). */
export interface RouteDefinition extends RouteShape<RouteFamily, TSchema, TSchema, TSchema> {
  /** OpenAPI tags: set for a whole table by `tagged`, not per route. */
  tags?: string[];
  handler: (req: RouteRequest, deps: AppDeps) => Promise<RouteResult>;
}

/** A route as written: the handler's input types come from the request schemas. */
export interface TypedRoute<
  F extends RouteFamily,
  P extends TSchema | undefined,
  Q extends TSchema | undefined,
  B extends TSchema | undefined,
> extends RouteShape<F, P, Q, B> {
  handler: (
    req: RouteRequest<
      StaticOr<B, undefined>,
      StaticOr<Q, Record<string, never>>,
      StaticOr<P, Record<string, never>>,
      AuthOf<F>
    >,
    deps: AppDeps,
  ) => Promise<RouteResult>;
}

/**
 * Declares one route. Request types are inferred from the schemas (`Static<>`), and `auth`
 * is non-optional outside the `public` family, so a handler cannot disagree with what
 * validation let through.
 */
export function defineRoute<
  F extends RouteFamily,
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
>(route: TypedRoute<F, P, Q, B>): RouteDefinition {
  // The mount layer validates params, query and body against these same schemas before
  // the handler runs, which is what makes the narrowing sound.
  return route as unknown as RouteDefinition;
}

/** The routes of one area under its OpenAPI tag, which groups them in the document. */
export const tagged = (tag: string, routes: readonly RouteDefinition[]): RouteDefinition[] =>
  routes.map((route) => ({ ...route, tags: [tag] }));
