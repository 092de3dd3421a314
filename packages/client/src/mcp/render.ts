import type { GovernedClient } from '../client';
import { actionDetails, requiredApprovals } from '../cli/action-view';
import { changeText } from '../cli/action-words';
import { named, namesFor, type Names } from '../cli/names';
import { makeStyle } from '../cli/output';
import { FINAL_ACTION_STATUSES, type Action } from '../cli/types';

/** Plain text: a model reads the same lines `gr actions show` prints, without colour. */
const PLAIN = makeStyle(false);

/**
 * Names of principals and world objects by id, read once per id: names change rarely and
 * only help the reader (the ids beside them are what is decided on), so a session keeps
 * what it has read and asks the service only about ids it has not seen.
 */
export class NameBook {
  private readonly known = new Map<string, string>();

  constructor(private readonly client: GovernedClient) {}

  /** The names behind the ids `gr actions show` prints for this action. */
  async of(action: Action): Promise<Names> {
    const target = (action.target as { world_object_ref?: string }).world_object_ref;
    const principals = [
      action.proposed_by,
      ...action.decisions.map((d) => d.principal_id),
      ...action.approvals.map((d) => d.principal_id),
      ...(action.rule?.approver_principals ?? []),
    ].filter((id) => !this.known.has(id));
    const objects = target && !this.known.has(target) ? [target] : [];
    if (principals.length > 0 || objects.length > 0) {
      const found = await namesFor(this.client, { principals, objects });
      for (const [id, name] of found) this.known.set(id, name);
    }
    return this.known;
  }
}

const UNDECIDED = new Set(['proposed', 'awaiting_approval']);

/** The people whose approvals count, as the rule names them (never the proposer). */
function whoMayApprove(action: Action, names: Names): string {
  const required = requiredApprovals(action);
  const rule = action.rule;
  const who = rule
    ? [
        ...rule.approver_roles.map((r) => `role ${r}`),
        ...rule.approver_principals.map((id) => named(names, id)),
      ]
    : [];
  const whom = who.length > 0 ? who.join(', ') : 'anyone but the proposer';
  const signed = rule?.require_approver_signature
    ? ', each signing with their own approver key'
    : '';
  return `${required} approval(s) from ${whom}${signed} (rule: ${rule ? rule.name : 'none, as proposed'})`;
}

/** What the next step is, for the agent reading the action. */
function nextStep(action: Action): string {
  switch (action.status) {
    case 'proposed':
    case 'awaiting_approval':
      return `Waiting for people to decide. Call wait_for_decision with action_id ${action.action_id}; a person approves or rejects it in the console or with \`gr actions approve ${action.action_id}\`.`;
    case 'approved':
      return action.executable_at && Date.parse(action.executable_at) > Date.now()
        ? `Approved; executable from ${action.executable_at}. Call execute_action then.`
        : `Approved. Call execute_action with action_id ${action.action_id} to carry it out.`;
    case 'executing':
      return 'Executing now; call get_action to see how it ends.';
    case 'executed':
      return 'Executed: the change is done.';
    default:
      return `Final (${action.status}): nothing more will happen to this action.`;
  }
}

/**
 * An action as a model reads it: one line saying what it would change where, the next
 * step, then the details `gr actions show` prints (the change as `field: before → after`,
 * the rule and who may approve, the approvals, the window, the Temporal link).
 */
export async function actionText(names: NameBook, action: Action): Promise<string> {
  const known = await names.of(action);
  const details = actionDetails(action, PLAIN, Date.now(), known).filter(
    // Decisions are people's: an agent is never told it "may approve" through this server.
    (line) => !line.startsWith('  you may'),
  );
  return [
    `${action.action_id} is ${action.status}: ${changeText(action, known)}`,
    nextStep(action),
    ...(UNDECIDED.has(action.status) ? [`Who may approve: ${whoMayApprove(action, known)}.`] : []),
    ...(action.why_not.execute && !FINAL_ACTION_STATUSES.has(action.status)
      ? [`Not executable yet: ${action.why_not.execute}.`]
      : []),
    '',
    ...details,
  ].join('\n');
}
