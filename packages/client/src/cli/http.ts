import { createClient, type GovernedClient } from '../client';
import { notTheServiceText, ServiceUnreachableError } from '../errors';
import { CliError } from './fail';

/** How long one request may go unanswered by default (`GR_REQUEST_TIMEOUT` sets it). */
const DEFAULT_REQUEST_TIMEOUT_S = 60;

/**
 * A client of the service for the CLI: two quick retries of a 429/503 (the client honours
 * Retry-After; a person is waiting), each request bounded in time, and every answer the
 * service's JSON (a person who typed a wrong URL reads what answered instead).
 */
export function cliClient(
  baseUrl: string,
  apiKey: string,
  env: NodeJS.ProcessEnv = process.env,
): GovernedClient {
  const fetch = answeringJson(baseUrl, requestTimeoutMs(env));
  return createClient({ baseUrl, apiKey, retries: 2, fetch });
}

/** `GR_REQUEST_TIMEOUT` (seconds) in milliseconds, else the default. */
export function requestTimeoutMs(env: NodeJS.ProcessEnv): number {
  const given = env['GR_REQUEST_TIMEOUT'];
  if (given === undefined || given === '') return DEFAULT_REQUEST_TIMEOUT_S * 1000;
  const seconds = Number(given);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new CliError(`GR_REQUEST_TIMEOUT must be a positive number of seconds, not ${given}`, 2);
  }
  return Math.round(seconds * 1000);
}

/**
 * fetch with a deadline per attempt, refusing a successful answer that is not JSON: every
 * route the CLI calls answers JSON, so anything else came from something other than the
 * service (a console page, a proxy's login page, another program on that port).
 */
export function answeringJson(baseUrl: string, timeoutMs: number) {
  return async (request: Request): Promise<Response> => {
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      // A request without a body goes by its URL and parts (undici would copy the Request).
      response =
        request.body === null
          ? await globalThis.fetch(request.url, {
              method: request.method,
              headers: request.headers,
              redirect: request.redirect,
              signal,
            })
          : await globalThis.fetch(request, { signal });
    } catch (error) {
      if (!signal.aborted) throw error;
      const reason = `no answer within ${timeoutMs / 1000} s (GR_REQUEST_TIMEOUT)`;
      throw new ServiceUnreachableError(baseUrl, reason, { cause: error });
    }
    if (response.ok && hasBody(response) && !isJson(response)) {
      const what = notTheServiceText(response, await response.text());
      throw new CliError(`${what}; is ${baseUrl} the service's URL?`);
    }
    return response;
  };
}

const hasBody = (response: Response) =>
  response.status !== 204 && response.headers.get('Content-Length') !== '0';

const isJson = (response: Response) =>
  /^application\/([\w.-]+\+)?json\b/i.test(response.headers.get('Content-Type') ?? '');
