// The approvals console: plain modules, no build step. The API key lives in this tab's
// sessionStorage only and goes out as X-API-Key on same-origin requests.
const KEY = 'governed-runtime.api-key';
const view = document.getElementById('view');
const banner = document.getElementById('banner');

/** Builds an element; strings become text nodes, so nothing from the API is parsed as HTML. */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

const apiKey = () => sessionStorage.getItem(KEY);

function say(message, kind = 'error') {
  banner.textContent = message;
  banner.className = kind === 'error' ? '' : kind;
  banner.hidden = !message;
}

/** Calls the API; answers the payload, or throws with the API's own error message. */
async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: {
      'X-API-Key': apiKey() ?? '',
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : {};
  if (!response.ok) {
    const error = json.error ?? {};
    const detail = Array.isArray(error.detail)
      ? `: ${error.detail.map((issue) => issue.msg).join('; ')}`
      : '';
    throw new Error(`${error.message ?? `HTTP ${response.status}`}${detail}`);
  }
  return json.payload;
}

const when = (iso) => {
  if (!iso) return '—';
  const ms = Date.parse(iso) - Date.now();
  const minutes = Math.round(Math.abs(ms) / 60000);
  const span = minutes < 60 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
  return h('span', { title: iso }, ms >= 0 ? `in ${span}` : `${span} ago`);
};
const status = (value) => h('span', { class: `status ${value}` }, value.replaceAll('_', ' '));
const targetOf = (action) =>
  action.target.world_object_ref ?? action.target.url ?? action.target.channel ?? '—';

function table(headers, rows, onOpen) {
  if (rows.length === 0) return h('p', { class: 'muted', id: 'empty' }, 'Nothing here.');
  return h(
    'table',
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((title) => h('th', {}, title)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map(({ id, cells }) =>
        h(
          'tr',
          {
            class: onOpen ? 'link' : undefined,
            'data-id': id,
            onclick: onOpen && (() => onOpen(id)),
          },
          cells.map((cell) => h('td', {}, cell)),
        ),
      ),
    ),
  );
}

const open = (id) => (location.hash = `#/action/${id}`);

function actionRows(items) {
  return items.map((a) => ({
    id: a.action_id,
    cells: [
      status(a.status),
      h('span', {}, a.action_kind, h('br'), h('code', {}, targetOf(a))),
      a.diff_summary ?? '—',
      a.reason ?? h('span', { class: 'muted' }, 'no reason given'),
      `${a.approvals.length}/${a.required_approvals}`,
      h('code', {}, a.proposed_by),
      when(a.expires_at),
    ],
  }));
}
const ACTION_HEADERS = [
  'Status',
  'Action',
  'Change',
  'Reason',
  'Approvals',
  'Proposed by',
  'Window ends',
];

async function showInbox() {
  const page = await api('GET', '/v1/external-actions?awaiting_me=true&limit=50');
  view.replaceChildren(
    h(
      'div',
      { class: 'toolbar' },
      h('strong', { id: 'inbox-count' }, `Awaiting your approval: ${page.items.length}`),
    ),
    table(ACTION_HEADERS, actionRows(page.items), open),
  );
}

async function showActions(query) {
  const selected = query.get('status') ?? '';
  const statuses = [
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
  const path = `/v1/external-actions?limit=50${selected ? `&status=${selected}` : ''}`;
  const page = await api('GET', path);
  const filter = h(
    'select',
    {
      id: 'status-filter',
      onchange: (e) => (location.hash = `#/actions?status=${e.target.value}`),
    },
    statuses.map((s) =>
      h(
        'option',
        { value: s, selected: s === selected },
        s ? s.replaceAll('_', ' ') : 'any status',
      ),
    ),
  );
  view.replaceChildren(
    h('div', { class: 'toolbar' }, h('label', {}, 'Status ', filter)),
    table(ACTION_HEADERS, actionRows(page.items), open),
  );
}

async function showHistory() {
  const page = await api('GET', '/v1/external-actions/history?limit=100');
  view.replaceChildren(
    table(
      ['When', 'Action', 'Event', 'By', 'Digest'],
      page.items.map((e) => ({
        id: e.action_id,
        cells: [
          when(e.at),
          h('code', {}, e.action_id),
          e.event,
          e.actor ? h('code', {}, e.actor.principal_id) : h('span', { class: 'muted' }, 'workflow'),
          h('code', { title: e.digest }, e.digest.slice(0, 19) + '…'),
        ],
      })),
      open,
    ),
  );
}

function diffTable(plan) {
  const changes = plan?.diff?.changes;
  if (changes) {
    return h(
      'table',
      { class: 'diff' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Field'), h('th', {}, 'Now'), h('th', {}, 'After'))),
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
    );
  }
  if (plan?.request) return h('pre', { class: 'mono' }, JSON.stringify(plan.request, null, 2));
  return h('p', { class: 'muted' }, plan ? 'No change planned.' : 'Not planned yet.');
}

function ruleCard(rule) {
  if (!rule) return h('p', { class: 'muted' }, 'No approval rule governs this action.');
  const who = [...rule.approver_roles.map((r) => `role ${r}`), ...rule.approver_principals];
  return h(
    'dl',
    {},
    h('dt', {}, 'Rule'),
    h('dd', {}, `${rule.name} `, h('code', {}, `${rule.rule_id} v${rule.version}`)),
    h('dt', {}, 'Approvers'),
    h('dd', {}, who.length ? who.join(', ') : 'anyone but the proposer'),
    h('dt', {}, 'Reason'),
    h('dd', {}, rule.require_reason ? 'required' : 'optional'),
    h('dt', {}, 'Wait'),
    h('dd', {}, rule.wait_seconds ? `${rule.wait_seconds} s after approval` : 'none'),
    h('dt', {}, 'Auto-execute'),
    h('dd', {}, rule.auto_execute ? 'yes' : 'no'),
  );
}

async function showAction(id) {
  const [action, ledger] = await Promise.all([
    api('GET', `/v1/external-actions/${id}`),
    api('GET', `/v1/external-actions/history?action_id=${id}&limit=100`),
  ]);
  const reason = h('textarea', {
    id: 'decision-reason',
    placeholder: 'Reason (kept in the ledger)',
  });
  const decide = (decision) => async () => {
    try {
      const body =
        decision === 'execute'
          ? {}
          : { reason: reason.value || undefined, plan_digest: action.dry_run?.plan_digest };
      await api('POST', `/v1/external-actions/${id}/${decision}`, body);
      say(`${decision} recorded`, 'info');
      await showAction(id);
    } catch (error) {
      say(error.message);
    }
  };
  const allowed = action.allowed;
  view.replaceChildren(
    h(
      'div',
      { class: 'toolbar' },
      h('h2', { class: 'title' }, `${action.action_kind} `, h('code', {}, action.action_id)),
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
          h('dd', {}, h('code', {}, targetOf(action))),
          h('dt', {}, 'Reason'),
          h('dd', {}, action.reason ?? '—'),
          h('dt', {}, 'Proposed by'),
          h('dd', {}, h('code', {}, action.proposed_by)),
          h('dt', {}, 'Plan digest'),
          h('dd', {}, h('code', {}, action.dry_run?.plan_digest ?? '—')),
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
        action.approvals.length
          ? h(
              'ul',
              {},
              action.approvals.map((a) =>
                h(
                  'li',
                  {},
                  h('code', {}, a.principal_id),
                  ' ',
                  when(a.at),
                  a.reason ? ` — ${a.reason}` : '',
                ),
              ),
            )
          : h('p', { class: 'muted' }, 'None yet.'),
        h('h2', {}, 'Rule in force'),
        ruleCard(action.rule),
        h(
          'div',
          { class: 'decide' },
          h('h2', { class: 'spaced' }, 'Decide'),
          reason,
          h(
            'div',
            { class: 'buttons' },
            h(
              'button',
              {
                class: 'primary',
                id: 'approve',
                disabled: !allowed.approve,
                onclick: decide('approve'),
              },
              'Approve',
            ),
            h(
              'button',
              {
                class: 'danger',
                id: 'reject',
                disabled: !allowed.reject,
                onclick: decide('reject'),
              },
              'Reject',
            ),
            h(
              'button',
              { id: 'execute', disabled: !allowed.execute, onclick: decide('execute') },
              'Execute',
            ),
          ),
        ),
      ),
    ),
    h(
      'section',
      { class: 'card spaced' },
      h('h2', {}, 'Ledger'),
      table(
        ['When', 'Event', 'Status', 'By', 'Digest'],
        ledger.items.map((e) => ({
          id: e.entry_id,
          cells: [
            when(e.at),
            e.event,
            status(e.status),
            e.actor ? h('code', {}, e.actor.principal_id) : 'workflow',
            h('code', { title: e.digest }, e.digest.slice(0, 19) + '…'),
          ],
        })),
      ),
    ),
  );
}

async function route() {
  const [path, search = ''] = location.hash.slice(1).split('?');
  const parts = path.split('/').filter(Boolean);
  for (const link of document.querySelectorAll('[data-nav]')) {
    link.classList.toggle(
      'active',
      link.dataset.nav === (parts[0] === 'action' ? '' : (parts[0] ?? 'inbox')),
    );
  }
  if (!apiKey()) return;
  say('');
  try {
    if (parts[0] === 'action' && parts[1]) await showAction(parts[1]);
    else if (parts[0] === 'actions') await showActions(new URLSearchParams(search));
    else if (parts[0] === 'history') await showHistory();
    else await showInbox();
  } catch (error) {
    say(error.message);
  }
}

function showKeyState() {
  const key = apiKey();
  document.getElementById('key-state').textContent = key ? `key …${key.slice(-4)}` : '';
  document.getElementById('key-forget').hidden = !key;
}

document.getElementById('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = document.getElementById('key-input');
  if (!input.value.trim()) return;
  sessionStorage.setItem(KEY, input.value.trim());
  input.value = '';
  showKeyState();
  void route();
});
document.getElementById('key-forget').addEventListener('click', () => {
  sessionStorage.removeItem(KEY);
  showKeyState();
  view.replaceChildren(h('p', { class: 'muted' }, 'Key forgotten.'));
});
window.addEventListener('hashchange', () => void route());
showKeyState();
void route();
