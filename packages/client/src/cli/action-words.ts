import { named, type Names } from './names';
import { clip } from './output';
import type { Action, ActionSummary, LedgerEntry } from './types';

type Target = { world_object_ref?: string; url?: string };

/**
 * What an action acts on, as people read it: `device Hall lamp (obj_…)` (the object's id
 * beside its name when known), the URL a webhook is posted to, or the notify channel.
 */
export function targetText(
  action: Pick<Action, 'target'> & { parameters?: Action['parameters'] },
  names: Names,
): string {
  const { world_object_ref: objectId, url } = action.target as Target;
  if (objectId) return named(names, objectId);
  if (url) return url;
  const channel = action.parameters?.['channel'];
  return typeof channel === 'string' ? `channel ${channel}` : 'the default channel';
}

/** A list row's target: the object's name alone when known (`gr actions show` adds the id). */
export function shortTarget(action: ActionSummary, names: Names): string {
  const { world_object_ref: objectId, url } = action.target as Target;
  if (objectId) return names.get(objectId) ?? objectId;
  return url ?? '-';
}

/** Each changed field of the plan: `status: "draft" → "reviewed"`. */
export function fieldChanges(plan: Action['dry_run']): string[] {
  const changes = (plan?.diff as { changes?: Record<string, { from: unknown; to: unknown }> })
    ?.changes;
  return Object.entries(changes ?? {}).map(
    ([name, { from, to }]) => `${name}: ${JSON.stringify(from) ?? 'unset'} → ${JSON.stringify(to)}`,
  );
}

/**
 * What the action would do, in one line naming its target: `status: "draft" → "reviewed"
 * on device Hall lamp (obj_…)`, `POST https://…`, `notify channel ops: "deploy at 5"`; a plan
 * that failed says so with its reasons.
 */
export function changeText(action: Action, names: Names): string {
  const plan = action.dry_run;
  const target = targetText(action, names);
  if (!plan) return `${action.action_kind} on ${target} (not planned yet)`;
  if (!plan.ok) {
    return `${action.action_kind} on ${target} (dry run failed: ${plan.policy.reasons.join('; ')})`;
  }
  const changes = fieldChanges(plan);
  if (changes.length > 0) return clip(`${changes.join(', ')} on ${target}`, 400);
  if (action.action_kind === 'webhook.post') return `POST ${target}`;
  if (action.action_kind === 'notify') {
    return clip(`notify ${target}: ${JSON.stringify(action.parameters['message'] ?? '')}`, 400);
  }
  return `${action.action_kind} on ${target}`;
}

/** One refused decision as the ledger keeps it (`decision_refused`, or an aggregate's last). */
interface Refusal {
  decision?: string;
  claimed_by?: { principal_id?: string; key_id?: string };
  problem?: string;
  at?: string;
}

/** The refusal entries of an action's ledger (one by one, then aggregates past twenty). */
export const isRefusal = (entry: LedgerEntry): boolean =>
  entry.event === 'decision_refused' || entry.event === 'decisions_refused';

/** The principals the refusals claimed to be, so their names can be read. */
export function claimedPrincipals(entries: LedgerEntry[]): string[] {
  return entries.flatMap((entry) => {
    const detail = entry.detail as Refusal & { last?: Refusal };
    const id = (detail.claimed_by ?? detail.last?.claimed_by)?.principal_id;
    return id ? [id] : [];
  });
}

/**
 * Who was refused and why, oldest first: `approve claimed by Ben (prn_…) at …Z, refused:
 * not signed by the api`; an aggregate entry says how many and the last one.
 */
export function refusalLines(entries: LedgerEntry[], names: Names): string[] {
  return [...entries]
    .sort((a, b) => a.seq - b.seq)
    .map((entry) => {
      const detail = entry.detail as Refusal & { count?: number; since_last_entry?: number };
      if (entry.event === 'decisions_refused') {
        const last = (detail as { last?: Refusal }).last;
        return `  ${detail.since_last_entry ?? '?'} more refused (${detail.count ?? '?'} in all); the last: ${refusalText(last ?? {}, names)}`;
      }
      return `  ${refusalText(detail, names)}`;
    });
}

function refusalText(refusal: Refusal, names: Names): string {
  const who = refusal.claimed_by?.principal_id;
  const claimed = who ? ` claimed by ${named(names, who)}` : ' naming nobody';
  const at = refusal.at ? ` at ${refusal.at.slice(0, 19)}Z` : '';
  return `${refusal.decision ?? 'a decision'}${claimed}${at}, refused: ${refusal.problem ?? 'no reason recorded'}`;
}
