import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { AppDeps } from '../../../app/deps';
import type { AuthContext } from '../../../auth/auth-context';
import { statusChangeView } from '../../../domain/governance/view-schemas';
import { defineRoute, type RouteDefinition, type RouteLink } from '../../route';
import { envelope, page } from '../common';

/** A control-plane mutation: who asks, under which request id, with what body. */
type Mutation<B extends TSchema> = (
  deps: AppDeps,
  auth: AuthContext,
  requestId: string,
  body: Static<B>,
) => Promise<unknown>;

interface Described {
  summary: string;
  description: string;
}

/** The list, create and status routes of one tenant resource (keys, principals, ...). */
export interface TenantRouteSpec<Q extends TObject, C extends TSchema, S extends TSchema> {
  /** Path segment and operationId stem: `organizations` → `/v1/admin/organizations`. */
  resource: string;
  /** How one record reads in descriptions: `organization`. */
  singular: string;
  view: TSchema;
  list: Described & { query: Q; run: (deps: AppDeps, query: Static<Q>) => Promise<unknown> };
  create: Described & {
    bodyName: string;
    body: C;
    run: Mutation<C>;
    /** What the create answers, when more than the view (a key's secret). */
    view?: TSchema;
    /** Fields of that answer holding a secret shown once (`RouteShape.secretFields`). */
    secretFields?: readonly string[];
    /** Links to other operations beyond the status change (OpenAPI `links`). */
    links?: Record<string, RouteLink>;
    /** When the create answers 409, when more than the common reasons. */
    conflict?: string;
  };
  setStatus: Described & { bodyName: string; body: S; run: Mutation<S> };
}

// The factory is generic over the schemas, so it hands them to `defineRoute` as plain
// schemas (inferring through a generic `Static<>` is too deep for the compiler) and casts the
// validated input back to the static type its caller declared: validation ran on the same
// schema first.

/**
 * `GET /v1/admin/<resource>` (paged newest first, filtered), `POST .../create` (201,
 * idempotent, audited) and `POST .../status` (the record and its previous status), all
 * operator-only: the shape every tenant resource shares.
 */
export function tenantRoutes<Q extends TObject, C extends TSchema, S extends TSchema>(
  spec: TenantRouteSpec<Q, C, S>,
): RouteDefinition[] {
  const base = `/v1/admin/${spec.resource}`;
  const operation = `admin.${spec.resource}`;
  // The status body names the record by its id field (`key_id`, `policy_id`, ...), which
  // the create answers: the link stateful testing follows from one to the other.
  const idField = Object.keys(
    (spec.setStatus.body as { properties?: Record<string, unknown> }).properties ?? {},
  ).find((name) => name !== 'status');
  const links: Record<string, RouteLink> = {
    ...(idField
      ? {
          SetStatus: {
            operationId: `${operation}.setStatus`,
            description: `Change the new ${spec.singular}'s status.`,
            requestBody: { [idField]: `$response.body#/payload/${idField}` },
          },
        }
      : {}),
    ...spec.create.links,
  };
  return [
    defineRoute({
      operationId: `${operation}.list`,
      method: 'GET',
      path: base,
      family: 'admin_control_plane',
      summary: spec.list.summary,
      description: spec.list.description,
      request: { query: spec.list.query },
      responses: {
        200: {
          description: `A page of ${spec.resource}.`,
          schema: page(spec.view, spec.list.query),
        },
      },
      handler: async (req, deps) => ({
        payload: await spec.list.run(deps, req.query as Static<Q>),
      }),
    }),
    defineRoute({
      operationId: `${operation}.create`,
      method: 'POST',
      path: `${base}/create`,
      family: 'admin_control_plane',
      summary: spec.create.summary,
      description: spec.create.description,
      request: { body: { name: spec.create.bodyName, schema: spec.create.body } },
      responses: {
        404: {
          description: `A record the body names (an organization, a principal) does not exist.`,
        },
        409: {
          description:
            spec.create.conflict ??
            `The name or e-mail is taken, or the record it joins is not active.`,
        },
        201: {
          description: `The new ${spec.singular}.`,
          schema: envelope(spec.create.view ?? spec.view),
          links,
        },
      },
      idempotent: true,
      ...(spec.create.secretFields ? { secretFields: spec.create.secretFields } : {}),
      handler: async (req, deps) => ({
        status: 201,
        payload: await spec.create.run(deps, req.auth, req.requestId, req.body as Static<C>),
      }),
    }),
    defineRoute({
      operationId: `${operation}.setStatus`,
      method: 'POST',
      path: `${base}/status`,
      family: 'admin_control_plane',
      summary: spec.setStatus.summary,
      description: spec.setStatus.description,
      request: { body: { name: spec.setStatus.bodyName, schema: spec.setStatus.body } },
      responses: {
        404: { description: `No such ${spec.singular}.` },
        409: {
          description: `The change is not allowed from its status, or would lock the caller out.`,
        },
        200: {
          description: `The ${spec.singular} after the change.`,
          schema: envelope(statusChangeView(spec.view)),
        },
      },
      handler: async (req, deps) => ({
        payload: await spec.setStatus.run(deps, req.auth, req.requestId, req.body as Static<S>),
      }),
    }),
  ];
}
