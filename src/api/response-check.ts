import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { RouteDefinition } from './route';

/** Validates a 2xx body against its route's response schema; records what it checked. */
export type ResponseChecker = (route: RouteDefinition, status: number, body: unknown) => void;

/**
 * Builds the checker the mount layer runs on every 2xx answer when `VALIDATE_RESPONSES` is
 * on (tests): a body that breaks its documented schema throws, which answers 500 and fails
 * the test that made the request. Each route's validated statuses land in `checked`, from
 * which the test run proves every route's 2xx was checked at least once.
 */
export function createResponseChecker(checked: Set<string>): ResponseChecker {
  const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
  const compiled = new Map<string, ValidateFunction>();
  return (route, status, body) => {
    const schema = route.responses[status]?.schema;
    if (!schema) return;
    const id = `${route.operationId} ${status}`;
    let validate = compiled.get(id);
    if (!validate) {
      validate = ajv.compile(schema);
      compiled.set(id, validate);
    }
    // Bodies go out as JSON: check what the client will parse, not the in-memory objects.
    const sent = JSON.parse(JSON.stringify(body)) as unknown;
    if (!validate(sent)) {
      const problems = (validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`)
        .join('; ');
      throw new Error(`response of ${id} breaks its schema: ${problems}`);
    }
    checked.add(route.operationId);
  };
}
