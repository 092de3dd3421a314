import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { pageById } from '../../store/paging';
import type { TenantRecord, TenantRecordsRepo, TenantStatus } from '../../store/tenant-records';
import { auditCreated, insertUnique } from './audit';
import { changeStatus } from './status-change';

type Deps = Pick<DomainInfra, 'authenticator' | 'config' | 'repos'>;

/**
 * One kind of tenant record (organization, principal, project, policy, approval rule,
 * subscription) as the control plane creates, lists and changes it: the three operations
 * are the same for all, so they are written once, here.
 */
export interface TenantResource<R extends TenantRecord, F extends object, V> {
  /** Audit action prefix (`<noun>.create`, `<noun>.status`) and the noun of a 404. */
  noun: string;
  /** Audit target type (`quota_policy`). */
  type: string;
  /** Id prefix: a list's cursors carry only ids of this prefix. */
  prefix: string;
  repo: (repos: DomainInfra['repos']) => TenantRecordsRepo<R, F>;
  view: (record: R) => V;
  /** Whether its status can change what a key may do (a change drops the key cache). */
  affectsKeys: boolean;
}

/** A resource description; the audit type is the noun and keys are unaffected unless said. */
export const resource = <R extends TenantRecord, F extends object, V>(
  noun: string,
  prefix: string,
  repo: TenantResource<R, F, V>['repo'],
  view: (record: R) => V,
  options: { type?: string; affectsKeys?: boolean } = {},
): TenantResource<R, F, V> => ({
  noun,
  type: options.type ?? noun,
  prefix,
  repo,
  view,
  affectsKeys: options.affectsKeys ?? false,
});

/**
 * Inserts a new record and audits it (`<noun>.create`); with `taken`, a unique name or
 * address already used is 409 saying so.
 */
export async function create<R extends TenantRecord, F extends object, V>(
  deps: Pick<DomainInfra, 'repos'>,
  auth: AuthContext,
  requestId: string,
  resource: TenantResource<R, F, V>,
  record: R,
  taken?: string,
): Promise<V> {
  const insert = () => resource.repo(deps.repos).insert(record);
  await (taken ? insertUnique(insert, taken) : insert());
  return auditCreated(deps, auth, requestId, {
    action: `${resource.noun}.create`,
    type: resource.type,
    id: record._id,
    view: resource.view(record) as V & Record<string, unknown>,
  });
}

/** A page of records newest first, narrowed by the query's filters. */
export function list<R extends TenantRecord, F extends object, V>(
  deps: Pick<DomainInfra, 'repos'>,
  resource: TenantResource<R, F, V>,
  query: F & { limit?: number; cursor?: string },
) {
  const { limit: _limit, cursor: _cursor, ...filter } = query;
  return pageById(
    query,
    resource.prefix,
    (limit, before) => resource.repo(deps.repos).list(filter as F, limit, before),
    resource.view,
  );
}

/** Refuses a status change after the record is found (throws a 409). */
type StatusCheck = (
  deps: Deps,
  auth: AuthContext,
  change: { id: string; status: TenantStatus },
) => Promise<void>;

/**
 * The status route's operation for one resource: changes the status of the record the body
 * names through `changeStatus` (404, no-op, status claim, audit), after `check`.
 */
export const statusSetter =
  <R extends TenantRecord, F extends object, V, B extends { status: TenantStatus }>(
    resource: TenantResource<R, F, V>,
    idOf: (body: B) => string,
    check?: StatusCheck,
  ) =>
  (deps: Deps, auth: AuthContext, requestId: string, body: B) => {
    const repo = resource.repo(deps.repos);
    const change = { id: idOf(body), status: body.status };
    return changeStatus(deps, auth, requestId, {
      action: `${resource.noun}.status`,
      type: resource.type,
      ...change,
      find: (id) => repo.findById(id),
      check: check && (() => check(deps, auth, change)),
      write: (record, now) => repo.setStatus(record, change.status, now),
      changes: (record) =>
        (record.version === undefined ? {} : { version: record.version + 1 }) as Partial<R>,
      view: (record) => resource.view(record) as Record<string, unknown>,
      affectsKeys: resource.affectsKeys,
    });
  };
