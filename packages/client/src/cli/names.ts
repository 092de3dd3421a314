import type { GovernedClient } from '../client';
import type { Action } from './types';

/** Names by id: principals and world objects an action names. */
export type Names = ReadonlyMap<string, string>;

/** Most ids of each kind one `GET /v1/external-actions/names` resolves. */
const MAX_NAMED_IDS = 100;

/**
 * The names behind the ids `gr actions show` prints (proposer, deciders, the rule's named
 * approvers, principals that refused decisions claimed, the target object).
 */
export function namesOf(
  client: GovernedClient,
  action: Action,
  claimed: readonly string[] = [],
): Promise<Names> {
  const target = (action.target as { world_object_ref?: string }).world_object_ref;
  return namesFor(client, {
    principals: [
      action.proposed_by,
      ...action.decisions.map((d) => d.principal_id),
      ...action.approvals.map((d) => d.principal_id),
      ...(action.rule?.approver_principals ?? []),
      ...claimed,
    ],
    objects: target ? [target] : [],
  });
}

/**
 * Principals' and world objects' names, in one `GET /v1/external-actions/names`. A failure
 * to read them (a key whose families do not include it, a service without it) leaves the
 * ids alone: names help people, the ids are what is decided on.
 */
export async function namesFor(
  client: GovernedClient,
  ids: { principals?: readonly string[]; objects?: readonly string[] },
): Promise<Names> {
  const principals = idList('prn', ids.principals);
  const objects = idList('obj', ids.objects);
  if (principals.length === 0 && objects.length === 0) return new Map();
  try {
    const { data } = await client.GET('/v1/external-actions/names', {
      params: {
        query: {
          ...(principals.length > 0 ? { principal_ids: principals.join(',') } : {}),
          ...(objects.length > 0 ? { object_ids: objects.join(',') } : {}),
        },
      },
    });
    const found = data!.payload;
    return new Map([
      ...found.principals.map((p) => [p.principal_id, p.name] as const),
      ...found.objects.map((o) => [o.object_id, `${o.kind} ${o.name}`] as const),
    ]);
  } catch {
    return new Map();
  }
}

/**
 * Distinct well-formed ids, as many as one request takes: a refused decision may claim an
 * id of any shape, and one malformed id would make the service refuse the whole request.
 */
const idList = (prefix: string, ids: readonly string[] = []): string[] => {
  const shape = new RegExp(`^${prefix}_[0-9A-Za-z]{10,40}$`);
  return [...new Set(ids)].filter((id) => shape.test(id)).slice(0, MAX_NAMED_IDS);
};

/** `Ben (prn_…)` when the name is known, else the id. */
export const named = (names: Names, id: string): string =>
  names.has(id) ? `${names.get(id)} (${id})` : id;
