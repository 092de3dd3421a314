// One action: what it does, its plan, approvals, the rule in force, the decision box (or,
// once finished, its outcome) and its ledger.
import { decisionBox, FINISHED } from './decide.js';
import { h, idCode, muted, status, table, when } from './dom.js';
import { byCell, digestCell, eventCell, principalsOf } from './ledger.js';
import { idsOfActions, targetOf } from './lists.js';

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

/** Why the dry run refused the plan, when it did: the plan shown is not one to approve. */
const planProblem = (plan) =>
  plan && !plan.ok
    ? h(
        'p',
        { class: 'bad', id: 'plan-problem' },
        `The dry run failed: ${plan.policy.reasons.join('; ')}`,
      )
    : null;

export async function showAction(ctx, id) {
  const { api, names } = ctx;
  const [action, ledger] = await Promise.all([
    api('GET', `/v1/external-actions/${encodeURIComponent(id)}`),
    api('GET', `/v1/external-actions/history?action_id=${encodeURIComponent(id)}&limit=100`),
  ]);
  const finished = FINISHED.has(action.status);
  const ids = idsOfActions([action]);
  // Under a rule that requires the approver's own signature, whether the caller has a key
  // this page can sign with decides whether Approve and Reject can work at all.
  const [keys] = await Promise.all([
    action.rule?.require_approver_signature && !finished
      ? api('GET', '/v1/principals/me/keys').then((page) => page.items)
      : [],
    names.resolve({
      ...ids,
      principals: [
        ...ids.principals,
        ...action.decisions.map((d) => d.principal_id),
        ...ledger.items.flatMap(principalsOf),
      ],
    }),
  ]);
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
          finished
            ? [
                h('dt', {}, 'Finished'),
                h('dd', {}, when(action.status_timestamps?.[action.status] ?? action.updated_at)),
              ]
            : [
                h('dt', {}, 'Window ends'),
                h('dd', {}, when(action.expires_at)),
                action.executable_at
                  ? [h('dt', {}, 'Executable'), h('dd', {}, when(action.executable_at))]
                  : null,
              ],
        ),
        h('h2', { class: 'spaced' }, 'Plan'),
        planProblem(action.dry_run),
        diffTable(action.dry_run),
      ),
      h(
        'section',
        { class: 'card' },
        h('h2', {}, `Approvals ${action.approvals.length}/${action.bounds.required_approvals}`),
        approvalsList(action, names),
        h('h2', {}, 'Rule in force'),
        ruleCard(action.rule, names),
        decisionBox(ctx, action, { keys, ledger }),
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
