import type { GovernedClient } from '../client';
import type { Action } from './types';

/** Names by id: principals and world objects an action names. */
export type Names = ReadonlyMap<string, string>;

/**
 * The names behind the ids `gr actions show` prints (proposer, deciders, the rule's named
 * approvers, the target object), in one `GET /v1/external-actions/names`. A failure to
 * read them leaves the ids alone: names help people, the ids are what is decided on.
 */
export async function namesOf(client: GovernedClient, action: Action): Promise<Names> {
  const principals = new Set<string>([
    action.proposed_by,
    ...action.decisions.map((d) => d.principal_id),
    ...action.approvals.map((d) => d.principal_id),
    ...(action.rule?.approver_principals ?? []),
  ]);
  const target = (action.target as { world_object_ref?: string }).world_object_ref;
  try {
    const { data } = await client.GET('/v1/external-actions/names', {
      params: {
        query: {
          principal_ids: [...principals].slice(0, 100).join(','),
          ...(target ? { object_ids: target } : {}),
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

/** `Ben (prn_…)` when the name is known, else the id. */
export const named = (names: Names, id: string): string =>
  names.has(id) ? `${names.get(id)} (${id})` : id;
