import type { TObject, TSchema } from '@sinclair/typebox';
import type { FamilyName } from '../../../auth/families';
import { pathParams } from '../../../lib/schema';
import { defineRoute, tagged, type HttpMethod, type RouteDefinition } from '../../route';
import { notImplemented } from '../common';

/** One route whose capability is planned: enough to authenticate, validate and document it. */
export interface PlannedRow {
  operationId: string;
  method: HttpMethod;
  path: string;
  family: FamilyName;
  summary: string;
  /** What the 501 says is not built yet. */
  capability: string;
  /** Path parameters by name. */
  params?: Record<string, TSchema>;
  query?: TObject;
  /** The request body, under its OpenAPI component name. */
  body?: { name: string; schema: TSchema; required?: boolean };
}

/**
 * Expands the rows owned by one issue into routes that authenticate and validate like any
 * other, then answer 501 `not_implemented` naming the capability and the issue.
 */
export function plannedRoutes(issue: number, tag: string, rows: PlannedRow[]): RouteDefinition[] {
  const routes = rows.map((row) =>
    defineRoute({
      operationId: row.operationId,
      method: row.method,
      path: row.path,
      family: row.family,
      summary: row.summary,
      description: `Planned: ${row.capability} is built by issue #${issue}; until then this route authenticates and validates, then answers 501.`,
      request: {
        ...(row.params ? { params: pathParams(row.params) } : {}),
        ...(row.query ? { query: row.query } : {}),
        ...(row.body ? { body: row.body } : {}),
      },
      responses: { 501: { description: `Not built yet (issue #${issue}).` } },
      handler: notImplemented(row.capability, issue),
    }),
  );
  return tagged(tag, routes);
}
