// One action: what it does, its plan, approvals, the rule in force, the decision buttons
// and its ledger.
import { confirmDialog } from './dialog.js';
import { h, idCode, muted, status, table, when } from './dom.js';
import { byCell, digestCell, eventCell, principalsOf } from './ledger.js';
import { idsOfActions, targetOf } from './lists.js';
import { passkeyAssertion } from './passkeys.js';

function diffTable(plan) {
  const changes = plan?.diff?.changes;
  if (changes) {
    return h(
      'div',
      { class: 'scroll' },
      h(
        'table',
        { class: 'diff' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Field', 'Now', 'After'].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        h(
          'tbody',
          {},
          Object.entries(changes).map(([field, { from, to }]) =>
            h(
              'tr',
              {},
              h('td', {}, field),
              h('td', { class: 'from' }, JSON.stringify(from) ?? 'unset'),
              h('td', { class: 'to' }, JSON.stringify(to)),
            ),
          ),
        ),
      ),
    );
  }
  if (plan?.request) return h('pre', { class: 'mono' }, JSON.stringify(plan.request, null, 2));
  return muted(plan ? 'No change planned.' : 'Not planned yet.');
}

function ruleCard(rule, names) {
  if (!rule) return h('p', { class: 'muted' }, 'No approval rule governs this action.');
  const who = [
    ...rule.approver_roles.map((r) => `role ${r}`),
    ...rule.approver_principals.map((id) => names.tag(id)),
  ];
  return h(
    'dl',
    {},
    h('dt', {}, 'Rule'),
    h(
      'dd',
      {},
      h('span', { class: 'name' }, rule.name),
      ' ',
      idCode(rule.rule_id),
      ` v${rule.version}`,
    ),
    h('dt', {}, 'Approvers'),
    h(
      'dd',
      {},
      who.length ? who.flatMap((w, i) => (i ? [', ', w] : [w])) : 'anyone but the proposer',
    ),
    h('dt', {}, 'Reason'),
    h('dd', {}, rule.require_reason ? 'required' : 'optional'),
    h('dt', {}, 'Wait'),
    h('dd', {}, rule.wait_seconds ? `${rule.wait_seconds} s after approval` : 'none'),
    h('dt', {}, 'Auto-execute'),
    h('dd', {}, rule.auto_execute ? 'yes' : 'no'),
    h('dt', {}, 'Signature'),
    h(
      'dd',
      { id: 'signature-rule' },
      rule.require_approver_signature
        ? 'your own passkey signs approvals and rejections'
        : 'the api key is enough',
    ),
  );
}

/** Reject and execute cannot be taken back: they ask first. Approve is bound to the plan shown. */
const CONFIRM = {
  reject: { title: 'Reject this action?', confirmLabel: 'Reject', danger: true },
  execute: { title: 'Execute this action now?', confirmLabel: 'Execute', danger: false },
};

function decisionButtons(ctx, action, reason) {
  const { api, say, refresh } = ctx;
  const id = action.action_id;
  const decide = (decision) => async () => {
    const ask = CONFIRM[decision];
    const text =
      decision === 'execute'
        ? `${action.action_kind} takes effect on its target; this cannot be undone.`
        : 'The action ends rejected; nobody can approve it afterwards.';
    if (ask && !(await confirmDialog({ ...ask, text }))) return;
    const signs = decision !== 'execute' && action.rule?.require_approver_signature === true;
    try {
      const body =
        decision === 'execute'
          ? {}
          : { reason: reason.value || undefined, plan_digest: action.dry_run?.plan_digest };
      if (signs) {
        say('Confirm with your passkey (PIN, fingerprint or face)…', 'info');
        const assertion = await passkeyAssertion(api, id, decision, body.plan_digest);
        // Without a passkey the decision goes bare: the api's 403 names the rule and what to do.
        if (assertion) body.approver_assertion = assertion;
      }
      await api('POST', `/v1/external-actions/${id}/${decision}`, body);
      await refresh();
      say(`${decision} recorded${signs ? ', signed with your passkey' : ''}`, 'info');
    } catch (error) {
      say(
        signs && error.status === 403 && /own signature/.test(error.message)
          ? `${error.message}. In this console: Your keys → Register a passkey.`
          : error.message,
      );
    }
  };
  const button = (decision, label, className) =>
    h(
      'button',
      {
        type: 'button',
        class: className,
        id: decision,
        disabled: !action.allowed[decision],
        onclick: decide(decision),
      },
      label,
    );
  return h(
    'div',
    { class: 'buttons' },
    button('approve', 'Approve', 'primary'),
    button('reject', 'Reject', 'danger'),
    button('execute', 'Execute'),
  );
}

function approvalsList(action, names) {
  if (!action.approvals.length) return h('p', { class: 'muted' }, 'None yet.');
  return h(
    'ul',
    { class: 'approvals' },
    action.approvals.map((a) =>
      h('li', {}, names.tag(a.principal_id), ' ', when(a.at), a.reason ? ` — ${a.reason}` : ''),
    ),
  );
}

export async function showAction(ctx, id) {
  const { api, names } = ctx;
  const [action, ledger] = await Promise.all([
    api('GET', `/v1/external-actions/${id}`),
    api('GET', `/v1/external-actions/history?action_id=${id}&limit=100`),
  ]);
  const ids = idsOfActions([action]);
  await names.resolve({
    ...ids,
    principals: [...ids.principals, ...ledger.items.flatMap(principalsOf)],
  });
  const reason = h('textarea', {
    id: 'decision-reason',
    placeholder: 'Reason (kept in the ledger)',
  });
  return [
    h(
      'div',
      { class: 'toolbar' },
      h('h2', { class: 'title' }, `${action.action_kind} `, idCode(action.action_id)),
      status(action.status),
      h(
        'a',
        { href: action.links.temporal_ui, target: '_blank', rel: 'noopener', id: 'temporal-link' },
        'Open in Temporal UI ↗',
      ),
    ),
    h(
      'div',
      { class: 'grid' },
      h(
        'section',
        { class: 'card' },
        h('h2', {}, 'What it does'),
        h(
          'dl',
          {},
          h('dt', {}, 'Target'),
          h('dd', { id: 'target' }, targetOf(action, names)),
          h('dt', {}, 'Reason'),
          h('dd', {}, action.reason ?? '—'),
          h('dt', {}, 'Proposed by'),
          h('dd', { id: 'proposed-by' }, names.tag(action.proposed_by)),
          h('dt', {}, 'Plan digest'),
          h('dd', {}, h('code', { class: 'id' }, action.dry_run?.plan_digest ?? '—')),
          h('dt', {}, 'Window ends'),
          h('dd', {}, when(action.expires_at)),
          action.executable_at
            ? [h('dt', {}, 'Executable'), h('dd', {}, when(action.executable_at))]
            : null,
        ),
        h('h2', { class: 'spaced' }, 'Plan'),
        diffTable(action.dry_run),
      ),
      h(
        'section',
        { class: 'card' },
        h('h2', {}, `Approvals ${action.approvals.length}/${action.bounds.required_approvals}`),
        approvalsList(action, names),
        h('h2', {}, 'Rule in force'),
        ruleCard(action.rule, names),
        h(
          'div',
          { class: 'decide' },
          h('h2', { class: 'spaced' }, h('label', { for: 'decision-reason' }, 'Decide')),
          reason,
          decisionButtons(ctx, action, reason),
        ),
      ),
    ),
    h(
      'section',
      { class: 'card spaced', id: 'ledger' },
      h('h2', {}, 'Ledger'),
      action.refused_decisions
        ? h(
            'p',
            { class: 'bad', id: 'refused-count' },
            `${action.refused_decisions} ${action.refused_decisions === 1 ? 'decision sent around the api was' : 'decisions sent around the api were'} refused.`,
          )
        : null,
      table(
        ['When', 'Event', 'Status', 'By', 'Digest'],
        ledger.items.map((e) => ({
          id: e.entry_id,
          cells: [
            when(e.at),
            eventCell(e, names),
            status(e.status),
            byCell(e, names),
            digestCell(e),
          ],
        })),
      ),
    ),
  ];
}
