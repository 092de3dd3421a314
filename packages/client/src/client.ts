import { randomUUID } from 'node:crypto';
import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import { errorOf, unreachableOr } from './errors';
import { IDEMPOTENT_POSTS } from './idempotent-posts';
import { retryingFetch, type RetryOptions } from './retrying-fetch';
import type { paths } from './schema';

export interface ClientOptions extends RetryOptions {
  /** Where the service answers, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** The `X-API-Key` every request carries. */
  apiKey: string;
  /** Another fetch (tests, proxies); default the global one. */
  fetch?: (request: Request) => Promise<Response>;
}

/** The service's API, typed from its OpenAPI document. */
export type GovernedApi = Client<paths>;

type GetPath = {
  [P in keyof paths]: paths[P] extends { get: object } ? P : never;
}[keyof paths];
type OkPayload<P extends GetPath> = paths[P]['get'] extends {
  responses: { 200: { content: { 'application/json': { payload: infer T } } } };
}
  ? T
  : never;
/** The GET paths that answer a page: `{items, next_cursor}`. */
export type PagedPath = {
  [P in GetPath]: OkPayload<P> extends { items: unknown[]; next_cursor: string | null } ? P : never;
}[GetPath];
/** One item of a paged path's pages. */
export type PageItem<P extends PagedPath> = OkPayload<P> extends { items: (infer I)[] } ? I : never;
/** The path and query parameters of a paged path (without `cursor`, which `paginate` sets). */
export type PageParams<P extends PagedPath> = paths[P]['get'] extends { parameters: infer Q }
  ? Q
  : never;

export interface GovernedClient extends GovernedApi {
  /**
   * Every item of a list, page after page, following `next_cursor`:
   * `for await (const action of client.paginate('/v1/external-actions', { query: { status: 'executed' } }))`.
   */
  paginate<P extends PagedPath>(
    path: P,
    params?: Partial<PageParams<P>>,
  ): AsyncGenerator<PageItem<P>>;
}

/**
 * A client of the service: the key and base URL given once; every non-2xx answer throws a
 * `GovernedApiError` carrying the error envelope, a network failure a
 * `ServiceUnreachableError`; POSTs that accept an `Idempotency-Key`
 * get a fresh one (kept across retries); 429 and 503 are retried as `Retry-After` says.
 * Requests and answers are typed by path: `await client.GET('/v1/external-actions/{action_id}',
 * { params: { path: { action_id } } })`.
 */
export function createClient(options: ClientOptions): GovernedClient {
  const api = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { 'X-API-Key': options.apiKey },
    fetch: throwingOnError(retryingFetch(options.fetch ?? globalFetch, options), options.baseUrl),
  });
  // The idempotency middleware goes on POSTs only: with no middleware at all, openapi-fetch
  // skips its middleware pass (an id, a frozen options object, awaited hooks) on every GET.
  const post = api.POST;
  const request = api.request;
  const withKeys = <I>(init: I) => {
    const given = (init ?? {}) as { middleware?: Middleware[] };
    return { ...given, middleware: [idempotencyKeys, ...(given.middleware ?? [])] } as I;
  };
  api.POST = ((path: never, init: never) =>
    post(path, withKeys(init))) as unknown as typeof api.POST;
  api.request = ((method: string, path: never, init: never) =>
    (request as (m: string, p: never, i: never) => unknown)(
      method,
      path,
      method.toUpperCase() === 'POST' ? withKeys(init) : init,
    )) as unknown as typeof api.request;
  return Object.assign(api, {
    paginate: <P extends PagedPath>(path: P, params?: Partial<PageParams<P>>) =>
      pages(api, path, params),
  });
}

/**
 * The global fetch. A request without a body goes by its URL and parts: handing undici the
 * Request object makes it build a second one from the first (tens of µs a request).
 */
export const globalFetch = (request: Request): Promise<Response> =>
  request.body === null
    ? globalThis.fetch(request.url, {
        method: request.method,
        headers: request.headers,
        signal: request.signal,
        redirect: request.redirect,
      })
    : globalThis.fetch(request);

const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (request.method !== 'POST' || request.headers.has('Idempotency-Key')) return undefined;
    if (!IDEMPOTENT_POSTS.has(schemaPath)) return undefined;
    request.headers.set('Idempotency-Key', randomUUID());
    return request;
  },
};

/**
 * Every non-2xx answer (after the retries) becomes a `GovernedApiError`, and a request
 * nothing answered a `ServiceUnreachableError` naming the service and why.
 */
const throwingOnError =
  (fetchImpl: (request: Request) => Promise<Response>, baseUrl: string) =>
  async (request: Request): Promise<Response> => {
    let response: Response;
    try {
      response = await fetchImpl(request);
    } catch (error) {
      throw unreachableOr(baseUrl, error);
    }
    if (!response.ok) throw await errorOf(response);
    return response;
  };

async function* pages<P extends PagedPath>(
  api: GovernedApi,
  path: P,
  params: Partial<PageParams<P>> | undefined,
): AsyncGenerator<PageItem<P>> {
  const given = (params ?? {}) as {
    query?: Record<string, unknown>;
    path?: Record<string, unknown>;
  };
  let cursor: string | null | undefined;
  do {
    const query = { ...given.query, ...(cursor ? { cursor } : {}) };
    // The path is one of the typed GET paths; its init is built from its own parameters.
    const { data } = await (api.GET as (p: string, i: unknown) => Promise<{ data?: unknown }>)(
      path,
      { params: { ...given, query } },
    );
    const page = (data as { payload: { items: PageItem<P>[]; next_cursor: string | null } })
      .payload;
    yield* page.items;
    cursor = page.next_cursor;
  } while (cursor);
}
