import {
  code,
  detailsMarkdown,
  mdText,
  named,
  oneLine,
  type WorkflowLinks,
} from '../lib/workflow-text';

/**
 * What an action's workflow shows a person in the Temporal Web UI before anything happened:
 * its one-line summary (the list view) and its static details (the workflow's page). Built
 * by whoever starts the workflow (the api, a repair) from the workflow input alone, with the
 * names the starter resolved (nothing is read for them). Re-exported by `shared.ts`; typed
 * structurally so it needs nothing from there.
 */

/** Names for what people read, resolved by the starter (ids stay the identities). */
export interface DisplayNames {
  /** Who asked: the proposer's or requester's principal name. */
  requester?: string;
  /** The target's name (a world object's `name`). */
  target?: string;
}

/** The part of an action's workflow input its start text reads. */
export interface ActionStartFacts {
  action_id: string;
  contract: {
    action_kind: string;
    target: { world_object_ref?: string; url?: string };
    parameters: Record<string, unknown>;
    reason: string | null;
    shared_context_id: string | null;
    bounds: { required_approvals: number; expires_in_seconds: number };
  };
  proposed_by: { principal_id: string };
  rule?: { rule_id: string; name: string; version: number; wait_seconds: number } | null;
  names?: DisplayNames;
}

/** The target as a person reads it: `Lamp (obj_…)`, the URL, or the notify channel. */
export function actionTargetText(
  contract: ActionStartFacts['contract'],
  names?: DisplayNames,
): string {
  const { world_object_ref: objectId, url } = contract.target;
  if (objectId) return named(names?.target, objectId);
  if (url) return url;
  const channel = contract.parameters['channel'];
  return `channel ${typeof channel === 'string' ? channel : 'default'}`;
}

/** `world.update_object → Lamp (obj_…) · by Ada · 2 approvals · mark it reviewed` (≤ 200 bytes). */
export function actionStaticSummary(input: ActionStartFacts): string {
  const { contract } = input;
  const needed = contract.bounds.required_approvals;
  return oneLine(
    [
      `${contract.action_kind} → ${actionTargetText(contract, input.names)}`,
      `by ${input.names?.requester ?? input.proposed_by.principal_id}`,
      `${needed} approval${needed === 1 ? '' : 's'}`,
      ...(contract.reason ? [contract.reason] : []),
    ].join(' · '),
  );
}

/** The part of a dry-run plan the start text shows: what it would change, and its verdict. */
export interface PlanFacts {
  plan_digest: string;
  ok: boolean;
  diff: { changes: Record<string, { from: unknown; to: unknown }> } | null;
  request: Record<string, unknown> | null;
  policy: { reasons: string[] };
}

/**
 * The action's static details in Markdown: what, who, why, the rule and the links back;
 * with the plan made at proposal, the change itself and its digest.
 */
export function actionStaticDetails(
  input: ActionStartFacts,
  links: WorkflowLinks,
  plan?: PlanFacts | null,
): string {
  const { contract, rule, names } = input;
  return detailsMarkdown(
    `${contract.action_kind} → ${mdText(actionTargetText(contract, names))}`,
    {
      Action: code(input.action_id),
      Target: targetMarkdown(contract, names),
      Change: plan ? changeMarkdown(contract, plan) : null,
      'Proposed by': who(names?.requester, input.proposed_by.principal_id),
      Reason: contract.reason ? mdText(contract.reason) : '_none given_',
      'Approvals required': String(contract.bounds.required_approvals),
      'Rule in force': rule
        ? `"${mdText(rule.name)}" ${code(rule.rule_id)} v${rule.version}${rule.wait_seconds ? `, waits ${rule.wait_seconds} s after approval` : ''}`
        : '_none matched_',
      'Plan digest at proposal': plan ? code(plan.plan_digest) : null,
      'Shared context': contract.shared_context_id ? code(contract.shared_context_id) : null,
    },
    links,
  );
}

/** `Ada (`prn_…`)` in Markdown. */
export const who = (name: string | undefined, id: string): string =>
  name ? `${mdText(name)} (${code(id)})` : code(id);

function targetMarkdown(contract: ActionStartFacts['contract'], names?: DisplayNames): string {
  const objectId = contract.target.world_object_ref;
  if (objectId) return who(names?.target, objectId);
  return code(actionTargetText(contract, names));
}

/** Changed fields shown before the rest are counted (the API and the console show them all). */
const MAX_SHOWN_CHANGES = 10;
/** Characters of one value shown (a field's JSON, a body, a message). */
const MAX_VALUE_CHARS = 160;

/**
 * What the plan would do, in Markdown: `` `status`: `"draft"` → `"reviewed"` `` per field,
 * the request a webhook or a notification would send, or the dry run's refusal. Every
 * proposer-given string is inline code on one line or escaped text, so a field name or a
 * value cannot add a line, a link or emphasis to what an approver reads.
 */
function changeMarkdown(contract: ActionStartFacts['contract'], plan: PlanFacts): string {
  if (!plan.ok) {
    return `_none: the dry run refuses it_ (${mdText(clipped(plan.policy.reasons.join('; ')))})`;
  }
  const changes = Object.entries(plan.diff?.changes ?? {});
  if (changes.length > 0) {
    const shown = changes
      .slice(0, MAX_SHOWN_CHANGES)
      .map(([field, { from, to }]) => `${inline(field)}: ${json(from)} → ${json(to)}`);
    const more = changes.length - shown.length;
    return `${shown.join('; ')}${more > 0 ? `; and ${more} more field${more === 1 ? '' : 's'}` : ''}`;
  }
  const request = plan.request ?? {};
  if (contract.action_kind === 'webhook.post') {
    return `POST ${inline(textOf(request['url'] ?? contract.target.url))} with body ${json(request['body'])}`;
  }
  if (contract.action_kind === 'notify') {
    return `notify channel ${inline(textOf(request['channel'] ?? 'default'))}: ${json(request['message'])}`;
  }
  return '_nothing to change_';
}

/** At most `MAX_VALUE_CHARS` characters (whole code points: a cut never splits a pair). */
const clipped = (text: string): string => {
  const chars = [...text];
  return chars.length <= MAX_VALUE_CHARS
    ? text
    : `${chars.slice(0, MAX_VALUE_CHARS - 1).join('')}…`;
};

/** A string as itself, anything else as its JSON. */
const textOf = (value: unknown): string =>
  typeof value === 'string' ? value : (JSON.stringify(value) ?? '');

/** Proposer-given text as inline code on one line. */
const inline = (text: string): string => code(clipped(text.replace(/\s+/g, ' ')));

/** A value as its JSON in inline code (`unset` when there is none). */
const json = (value: unknown): string =>
  value === undefined ? '_unset_' : inline(JSON.stringify(value) ?? 'null');
