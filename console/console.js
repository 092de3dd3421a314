// The approvals console: plain ES modules, no build step (docs/console.md). This entry wires
// the key form, the banner and the routes; each view lives in its own module and gets the
// same context: `api` (calls with the stored key), `names` (names beside ids, one request
// per page), `say` (the banner) and `refresh` (render the current view again). A view answers
// the nodes to show; only the latest navigation's answer is shown, so a slow page never
// replaces the one navigated to after it.
import { createApi, forgetKey, storedKey, storeKey } from './api.js';
import { showAction } from './action.js';
import { h } from './dom.js';
import { showKeys } from './keys.js';
import { showActions, showHistory, showInbox } from './lists.js';
import { createNames } from './names.js';

const view = document.getElementById('view');
const banner = document.getElementById('banner');
const keyInput = document.getElementById('key-input');

function say(message, kind = 'error') {
  banner.textContent = message;
  banner.className = kind === 'error' ? '' : kind;
  banner.hidden = !message;
}

/**
 * The header says who is signed in: at once the key's last four characters, then (from
 * GET /v1/principals/me) the principal's name and the key's id and label.
 */
async function showKeyState() {
  const key = storedKey();
  const state = document.getElementById('key-state');
  state.textContent = key ? `key …${key.slice(-4)} in use` : '';
  document.getElementById('key-forget').hidden = !key;
  if (!key) return;
  try {
    const me = await api('GET', '/v1/principals/me');
    if (storedKey() !== key) return;
    const label = me.key.label ? ` “${me.key.label}”` : '';
    state.replaceChildren(
      'Signed in as ',
      h('strong', { id: 'signed-in-as' }, me.principal.name),
      ` · key ${me.key.key_id}${label} …${key.slice(-4)}`,
    );
  } catch {
    // The view's own requests report a refused key (and clear it); the short form stays.
  }
}

const intro = (text) => view.replaceChildren(h('p', { class: 'muted', id: 'intro' }, text));

/** The parts of the hash's path, and its query. */
function hashParts() {
  const [path, search = ''] = location.hash.slice(1).split('?');
  return { parts: path.split('/').filter(Boolean), search };
}

/**
 * The line asking for a key. A link to an action (from chat, e-mail, the Temporal UI) opens
 * it after the sign-in, as the hash stays and the key form's submit routes to it; the line
 * names that action so the person knows the link was understood.
 */
function askForKey(before) {
  const { parts } = hashParts();
  if (routeOf(parts) !== 'action') {
    if (before) intro(before);
    return;
  }
  intro(
    `${before ? `${before} ` : ''}Paste your API key to open action ${parts[1]}. It is kept in this tab's session storage only.`,
  );
}

const api = createApi({
  onKeyRefused: () => {
    void showKeyState();
    askForKey('No key in use.');
    keyInput.focus();
  },
});
const ctx = { api, names: createNames(api), say, refresh: () => route() };

const ROUTES = {
  action: (parts) => showAction(ctx, parts[1]),
  actions: (_parts, query) => showActions(ctx, query),
  history: () => showHistory(ctx),
  inbox: () => showInbox(ctx),
  keys: () => showKeys(ctx),
};

/** Counts navigations: a view answering for an older one is dropped. */
let navigation = 0;

/** The route a hash names: `#/action/<id>` (or `#/actions/<id>`) is one action. */
function routeOf(parts) {
  if ((parts[0] === 'action' || parts[0] === 'actions') && parts[1]) return 'action';
  return ROUTES[parts[0]] ? parts[0] : 'inbox';
}

async function route({ focus = false } = {}) {
  const turn = ++navigation;
  const { parts, search } = hashParts();
  const name = routeOf(parts);
  for (const link of document.querySelectorAll('[data-nav]')) {
    const current = link.dataset.nav === name;
    link.classList.toggle('active', current);
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (!storedKey()) {
    askForKey('');
    return;
  }
  say('');
  // While the next view loads nothing of the previous one stays: no button of another
  // action is there to be clicked under the new address.
  if (focus) view.replaceChildren(h('p', { class: 'muted', id: 'loading' }, 'Loading…'));
  try {
    const nodes = await ROUTES[name](parts, new URLSearchParams(search));
    if (turn !== navigation) return;
    view.replaceChildren(...nodes);
    // After a navigation the keyboard starts at the top of the new view.
    if (focus) view.focus();
  } catch (error) {
    if (turn !== navigation && error.name !== 'KeyRefused') return;
    say(error.message);
    // A view that cannot load leaves nothing stale behind it (a refused key already
    // replaced the view with the sign-in line).
    if (error.name !== 'KeyRefused') {
      view.replaceChildren(
        h('p', { class: 'muted', id: 'load-error' }, `Nothing to show here: ${error.message}`),
      );
    }
  }
}

document.getElementById('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  if (!keyInput.value.trim()) return;
  storeKey(keyInput.value.trim());
  keyInput.value = '';
  void showKeyState();
  void route();
});
document.getElementById('key-forget').addEventListener('click', () => {
  forgetKey();
  void showKeyState();
  say('');
  askForKey('Key forgotten.');
  keyInput.focus();
});
window.addEventListener('hashchange', () => void route({ focus: true }));
void showKeyState();
void route();
