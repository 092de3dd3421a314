import type { DomainInfra } from '../infra';
import type { ActionNamesQuery } from './schemas';

type Deps = Pick<DomainInfra, 'repos'>;

/** `a,b,a` → `[a, b]`: each id read once. */
const idsOf = (list: string | undefined): string[] => [...new Set(list ? list.split(',') : [])];

/**
 * The names behind the ids that actions and their ledger show (proposers, approvers, the
 * principals a refused decision claimed, a rule's approvers; target objects), so a person
 * reads names beside them. Only the name (and an object's kind): never a principal's e-mail,
 * organization or role. Ids are random and unguessable, so a caller resolves only ids it
 * has already been shown. One read by `_id` each, in parallel (FerretDB answers `$in` with
 * a collection scan; a lookup by `_id` without one).
 */
export async function actionNames(deps: Deps, query: ActionNamesQuery) {
  const [principals, objects] = await Promise.all([
    Promise.all(idsOf(query.principal_ids).map((id) => deps.repos.principals.findById(id))),
    Promise.all(idsOf(query.object_ids).map((id) => deps.repos.worldObjects.findById(id))),
  ]);
  return {
    principals: principals.flatMap((p) => (p ? [{ principal_id: p._id, name: p.name }] : [])),
    objects: objects.flatMap((o) => (o ? [{ object_id: o._id, name: o.name, kind: o.kind }] : [])),
  };
}
