import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { NotImplemented } from '../../lib/errors';
import type { AppDeps } from '../../app/deps';
import type { RouteDefinition, RouteLink, RouteResult } from '../route';
import { nextCursorSchema } from '../../lib/cursor';

/**
 * Handler for a route whose capability is not built yet: 501 after auth and validation.
 * `issue` names the issue that owns it; without one the capability is planned (roadmap).
 */
export function notImplemented(capability: string, issue?: number): PlannedHandler {
  const handler = plannedHandler(capability, issue);
  plannedHandlers.add(handler);
  return handler;
}

/** A handler that reads nothing of the request: it only answers 501. */
type PlannedHandler = () => Promise<RouteResult>;

const plannedHandlers = new WeakSet<PlannedHandler>();

/** Whether a route only answers 501 (its capability is planned, not built). */
export const isPlanned = (route: RouteDefinition): boolean =>
  plannedHandlers.has(route.handler as PlannedHandler);

function plannedHandler(capability: string, issue?: number): PlannedHandler {
  const message =
    issue === undefined
      ? `${capability} is not implemented yet (planned; see docs/roadmap.md)`
      : `${capability} is not implemented yet (tracked by issue #${issue})`;
  return (): Promise<RouteResult> =>
    Promise.reject(new NotImplemented(message, { extra: { capability, issue: issue ?? null } }));
}

/** `{ok: true, payload}` response schema around a payload schema. */
export const envelope = (payload: TSchema = Type.Object({})): TSchema =>
  Type.Object({ ok: Type.Literal(true), payload });

/**
 * A page of items, `{items, next_cursor}` in the envelope, of the list `query` pages:
 * `next_cursor` is stated in that query's cursor format, so what a page hands out is what
 * the next request accepts (the test app checks every answer against it).
 */
export function page(item: TSchema, query: TObject): TSchema {
  const cursor = query.properties['cursor'];
  if (!cursor) throw new Error('a page answers a paged query (one with `cursor`)');
  return envelope(Type.Object({ items: Type.Array(item), next_cursor: nextCursorSchema(cursor) }));
}

/** A handler whose payload is what `read` returns for the validated query (lists, reports). */
export const fromQuery =
  <Q>(read: (deps: AppDeps, query: Q) => Promise<unknown>) =>
  async (req: { query: Q }, deps: AppDeps): Promise<RouteResult> => ({
    payload: await read(deps, req.query),
  });

/** A handler whose payload is what `run` returns for the validated body. */
export const fromBody =
  <B>(run: (deps: AppDeps, body: B) => Promise<unknown>) =>
  async (req: { body: B }, deps: AppDeps): Promise<RouteResult> => ({
    payload: await run(deps, req.body),
  });

/**
 * OpenAPI links that hand one field of the answer (`pointer` into its body, e.g.
 * `/payload/action_id`) to other operations under the same name: as their path parameter
 * (`path: {Get: 'actions.get'}`) or as their body field (`body: {Deploy: 'substrates.deploy'}`).
 * The shape nearly every link here takes.
 */
export function handOn(
  field: string,
  pointer: string,
  operations: { path?: Record<string, string>; body?: Record<string, string> },
): Record<string, RouteLink> {
  const value = { [field]: `$response.body#${pointer}` };
  const links = (
    targets: Record<string, string> = {},
    as: 'parameters' | 'requestBody',
  ): [string, RouteLink][] =>
    Object.entries(targets).map(([name, operationId]) => [name, { operationId, [as]: value }]);
  return Object.fromEntries([
    ...links(operations.path, 'parameters'),
    ...links(operations.body, 'requestBody'),
  ]);
}
