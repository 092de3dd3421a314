import { fieldChanges, refusalLines, shortTarget, targetText } from './action-words';
import { named, type Names } from './names';
import { clip, table, when, type Style } from './output';
import type { Action, ActionSummary, LedgerEntry } from './types';

type Rule = NonNullable<Action['rule']>;
type Plan = NonNullable<Action['dry_run']>;
type Decision = Action['decisions'][number];

/** The rows of `gr actions list`: each action's target and what it would change there. */
export function actionTable(
  actions: ActionSummary[],
  style: Style,
  names: Names = new Map(),
): string[] {
  return table(
    ['ACTION', 'KIND', 'STATUS', 'APPROVALS', 'EXPIRES', 'TARGET', 'CHANGE'],
    actions.map((a) => [
      a.action_id,
      a.action_kind,
      style.status(a.status),
      `${a.approvals.length}/${a.required_approvals}`,
      a.expires_at.slice(0, 16).replace('T', ' '),
      clip(shortTarget(a, names), 40),
      clip(a.diff_summary ?? a.reason ?? '', 80),
    ]),
  );
}

/** `gr actions show`: what it does, what it would change, who decides, when, and where to look. */
export function actionDetails(
  action: Action,
  style: Style,
  now = Date.now(),
  names: Names = new Map(),
  refusals: LedgerEntry[] | null = null,
): string[] {
  const required = requiredApprovals(action);
  const decisionLine = decisionLineWith(names);
  const lines = [
    `${style.bold(action.action_id)}  ${action.action_kind}  ${style.status(action.status)}`,
    ...field('reason', action.reason ?? '-'),
    ...field('proposed', `by ${named(names, action.proposed_by)}, ${when(action.created_at, now)}`),
    ...field('target', targetText(action, names)),
    ...field('parameters', JSON.stringify(action.parameters)),
    ...(action.shared_context_id ? field('context', action.shared_context_id) : []),
    '',
    ...planLines(action.dry_run, style),
    '',
    ...ruleLines(action.rule, required, style, names),
    '',
    style.bold(`Approvals ${action.approvals.length}/${required}`),
    ...(action.approvals.length === 0 ? ['  none yet'] : action.approvals.map(decisionLine)),
    ...decisionsBesideApprovals(action).map(decisionLine),
    ...refusedLines(action, refusals, style, names),
    '',
    style.bold('Window'),
    ...field('expires', when(action.expires_at, now)),
    ...field(
      'executable',
      action.executable_at ? when(action.executable_at, now) : 'once approved',
    ),
    ...executionLines(action, style),
    '',
    ...field('you may', mayDo(action)),
    ...field('temporal', action.links.temporal_ui),
  ];
  return lines;
}

/** Approvals the action needs: the rule's number, else the one proposed in its bounds. */
export function requiredApprovals(action: Action): number {
  const bounds = action.bounds as { required_approvals?: number };
  return action.rule?.required_approvals ?? bounds.required_approvals ?? 1;
}

const field = (name: string, value: string) => [`  ${name.padEnd(11)} ${value}`];

/** The dry-run plan: its digest and verdict, each change, the request it would send. */
export function planLines(plan: Plan | null | undefined, style: Style): string[] {
  if (!plan) return [style.bold('Plan'), '  not planned yet'];
  const verdict = plan.policy.allowed ? 'policy allows it' : 'policy refuses it';
  const lines = [
    `${style.bold('Plan')} ${plan.plan_digest}  (${plan.ok ? 'runs as proposed' : style.status('failed')}; ${verdict})`,
  ];
  for (const change of fieldChanges(plan)) lines.push(`  ${change}`);
  if (plan.request) lines.push(`  request ${clip(JSON.stringify(plan.request), 400)}`);
  for (const reason of plan.policy.reasons) lines.push(`  ${style.dim('·')} ${reason}`);
  return lines;
}

function ruleLines(
  rule: Rule | null | undefined,
  required: number,
  style: Style,
  names: Names,
): string[] {
  if (!rule) return [`${style.bold('Rule')} none: ${required} approval(s) as proposed`];
  const who = [
    ...rule.approver_roles.map((r) => `role ${r}`),
    ...rule.approver_principals.map((id) => named(names, id)),
  ];
  return [
    `${style.bold('Rule')} ${rule.name} (${rule.rule_id} v${rule.version})`,
    ...field('approvals', String(rule.required_approvals ?? `${required} (as proposed)`)),
    ...field('deciders', who.length > 0 ? who.join(', ') : 'anyone but the proposer'),
    ...field('reason', rule.require_reason ? 'required' : 'optional'),
    ...field(
      'signature',
      rule.require_approver_signature ? "the approver's own key (gr keys create)" : 'not required',
    ),
    ...field('wait', `${rule.wait_seconds}s after approval`),
    ...field('execute', rule.auto_execute ? 'by itself once approved' : 'by a person'),
  ];
}

const decisionLineWith =
  (names: Names) =>
  (decision: Decision): string => {
    const reason = decision.reason ? `: ${JSON.stringify(decision.reason)}` : '';
    const signedWith = (decision.approver_assertion as { key_id?: string } | undefined)?.key_id;
    const signed = signedWith ? `, signed with ${signedWith}` : '';
    return `  ${decision.decision} by ${named(names, decision.principal_id)} at ${decision.at.slice(0, 19)}Z${signed}${reason}`;
  };

/**
 * Decisions sent around the api and refused: who they claimed to be and why each was
 * refused, from the ledger; only the count when the ledger could not be read.
 */
function refusedLines(
  action: Action,
  refusals: LedgerEntry[] | null,
  style: Style,
  names: Names,
): string[] {
  const count = action.refused_decisions ?? 0;
  if (count === 0) return [];
  const heading = ['', style.bold(`Refused ${count} decision(s)`)];
  if (!refusals || refusals.length === 0) return [...heading, '  (the ledger could not be read)'];
  return [...heading, ...refusalLines(refusals, names)];
}

/** Rejections and executions (approvals are listed above them). */
const decisionsBesideApprovals = (action: Action) =>
  action.decisions.filter((decision) => decision.decision !== 'approve');

function executionLines(action: Action, style: Style): string[] {
  const execution = action.execution;
  if (!execution) return [];
  return [
    ...field('executed', `${style.status(execution.outcome)} at ${when(execution.finished_at)}`),
    ...(execution.reason ? field('why', execution.reason) : []),
    ...field('result', clip(JSON.stringify(execution.result ?? {}), 400)),
  ];
}

function mayDo(action: Action): string {
  const may = (['approve', 'reject', 'execute'] as const).filter((verb) => action.allowed[verb]);
  return may.length > 0 ? may.join(', ') : 'nothing now';
}
