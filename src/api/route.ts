import type { Context } from 'koa';
import type { RouteFamily } from '../auth/families';
import type { AuthContext } from '../auth/auth-context';
import type { AppDeps } from '../app/deps';

/** A JSON Schema fragment (draft 2020-12 subset that both ajv and OpenAPI 3.1 read). */
export type JsonSchema = Record<string, unknown>;

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** What a handler sees: validated input plus who is calling. */
export interface RouteRequest<
  TBody = unknown,
  TQuery = Record<string, unknown>,
  TParams = Record<string, string>,
> {
  body: TBody;
  query: TQuery;
  params: TParams;
  /** Present on every route except the `public` family. */
  auth: AuthContext | undefined;
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
}

export interface RouteResponseDoc {
  description: string;
  schema?: JsonSchema;
}

export interface RouteDefinition<
  TBody = unknown,
  TQuery = Record<string, unknown>,
  TParams = Record<string, string>,
> {
  /** `family.verb`, unique across the API; also the OpenAPI operationId. */
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style path template: `/v1/sessions/{session_id}`. */
  path: string;
  /** Path as given to the router when it differs (multi-segment parameters). */
  routerPath?: string;
  family: RouteFamily;
  summary: string;
  description?: string;
  tags?: string[];
  request?: {
    params?: JsonSchema;
    query?: JsonSchema;
    /** `name` is the named request body of the seed (SessionStepRequest, ...). */
    body?: { name: string; schema: JsonSchema; required?: boolean };
  };
  /** Success responses by status; error responses are added for every route. */
  responses: Record<number, RouteResponseDoc>;
  /** Accepts `Idempotency-Key` (POSTs that create something). */
  idempotent?: boolean;
  /** Not in the OpenAPI document (docs assets). */
  hidden?: boolean;
  handler: (req: RouteRequest<TBody, TQuery, TParams>, deps: AppDeps) => Promise<RouteResult>;
}

/** Identity helper that keeps handler input types tied to the definition. */
export function defineRoute<
  TBody = unknown,
  TQuery = Record<string, unknown>,
  TParams = Record<string, string>,
>(route: RouteDefinition<TBody, TQuery, TParams>): RouteDefinition {
  return route as unknown as RouteDefinition;
}
