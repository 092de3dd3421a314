// The list views: the inbox, actions by status, and the ledger history.
import { actionLink, h, muted, status, table, when } from './dom.js';
import { byCell, digestCell, eventCell, principalsOf } from './ledger.js';

const open = (id) => (location.hash = `#/action/${id}`);

/** What an action acts on: a world object (named), a URL or a channel. */
export const targetOf = (action, names) =>
  action.target.world_object_ref
    ? names.tag(action.target.world_object_ref)
    : h('code', {}, action.target.url ?? action.target.channel ?? '—');

/** Every id an action shows, for one names request per page. */
export const idsOfActions = (actions) => ({
  principals: actions.flatMap((a) => [
    a.proposed_by,
    ...a.approvals.map((x) => x.principal_id),
    ...(a.rule?.approver_principals ?? []),
  ]),
  objects: actions.map((a) => a.target.world_object_ref).filter(Boolean),
});

const ACTION_HEADERS = [
  'Status',
  'Action',
  'Change',
  'Reason',
  'Approvals',
  'Proposed by',
  'Window ends',
];

function actionRows(items, names) {
  return items.map((a) => ({
    id: a.action_id,
    cells: [
      status(a.status),
      h('span', {}, actionLink(a.action_id, a.action_kind), h('br'), targetOf(a, names)),
      a.diff_summary ?? '—',
      a.reason ?? muted('no reason given'),
      `${a.approvals.length}/${a.required_approvals}`,
      names.tag(a.proposed_by),
      when(a.expires_at),
    ],
  }));
}

export async function showInbox({ api, names }) {
  const page = await api('GET', '/v1/external-actions?awaiting_me=true&limit=50');
  await names.resolve(idsOfActions(page.items));
  return [
    h(
      'div',
      { class: 'toolbar' },
      h(
        'h2',
        { class: 'title', id: 'inbox-count' },
        `Awaiting your approval: ${page.items.length}`,
      ),
    ),
    table(ACTION_HEADERS, actionRows(page.items, names), { onOpen: open }),
  ];
}

const STATUSES = [
  '',
  'awaiting_approval',
  'approved',
  'executing',
  'executed',
  'rejected',
  'expired',
  'failed',
  'dry_run_failed',
  'aborted',
];

export async function showActions({ api, names }, query) {
  const selected = query.get('status') ?? '';
  const path = `/v1/external-actions?limit=50${selected ? `&status=${selected}` : ''}`;
  const page = await api('GET', path);
  await names.resolve(idsOfActions(page.items));
  const filter = h(
    'select',
    {
      id: 'status-filter',
      onchange: (e) => (location.hash = `#/actions?status=${e.target.value}`),
    },
    STATUSES.map((s) =>
      h(
        'option',
        { value: s, selected: s === selected },
        s ? s.replaceAll('_', ' ') : 'any status',
      ),
    ),
  );
  return [
    h('div', { class: 'toolbar' }, h('label', {}, 'Status ', filter)),
    table(ACTION_HEADERS, actionRows(page.items, names), { onOpen: open }),
  ];
}

export async function showHistory({ api, names }) {
  const page = await api('GET', '/v1/external-actions/history?limit=100');
  await names.resolve({ principals: page.items.flatMap(principalsOf) });
  return [
    table(
      ['When', 'Action', 'Event', 'By', 'Digest'],
      page.items.map((e) => ({
        id: e.action_id,
        cells: [
          when(e.at),
          h(
            'span',
            {},
            actionLink(e.action_id, e.action_kind),
            h('br'),
            h('code', { class: 'id' }, e.action_id),
          ),
          eventCell(e, names),
          byCell(e, names),
          digestCell(e),
        ],
      })),
      { onOpen: open },
    ),
  ];
}
