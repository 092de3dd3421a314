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

/** The action's static details in Markdown: what, who, why, the rule and the links back. */
export function actionStaticDetails(
  input: ActionStartFacts,
  links: WorkflowLinks,
  planDigest?: string | null,
): string {
  const { contract, rule, names } = input;
  return detailsMarkdown(
    `${contract.action_kind} → ${mdText(actionTargetText(contract, names))}`,
    {
      Action: code(input.action_id),
      Target: targetMarkdown(contract, names),
      'Proposed by': who(names?.requester, input.proposed_by.principal_id),
      Reason: contract.reason ? mdText(contract.reason) : '_none given_',
      'Approvals required': String(contract.bounds.required_approvals),
      'Rule in force': rule
        ? `"${mdText(rule.name)}" ${code(rule.rule_id)} v${rule.version}${rule.wait_seconds ? `, waits ${rule.wait_seconds} s after approval` : ''}`
        : '_none matched_',
      'Plan digest at proposal': planDigest ? code(planDigest) : null,
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
