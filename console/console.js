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

/** The header names the key in use (its last four characters), or none. */
function showKeyState() {
  const key = storedKey();
  document.getElementById('key-state').textContent = key ? `key …${key.slice(-4)} in use` : '';
  document.getElementById('key-forget').hidden = !key;
}

const intro = (text) => view.replaceChildren(h('p', { class: 'muted', id: 'intro' }, text));

const api = createApi({
  onKeyRefused: () => {
    showKeyState();
    intro('No key in use.');
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

async function route({ focus = false } = {}) {
  const turn = ++navigation;
  const [path, search = ''] = location.hash.slice(1).split('?');
  const parts = path.split('/').filter(Boolean);
  const name = parts[0] === 'action' && parts[1] ? 'action' : ROUTES[parts[0]] ? parts[0] : 'inbox';
  for (const link of document.querySelectorAll('[data-nav]')) {
    const current = link.dataset.nav === name;
    link.classList.toggle('active', current);
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (!storedKey()) return;
  say('');
  try {
    const nodes = await ROUTES[name](parts, new URLSearchParams(search));
    if (turn !== navigation) return;
    view.replaceChildren(...nodes);
    // After a navigation the keyboard starts at the top of the new view.
    if (focus) view.focus();
  } catch (error) {
    if (turn === navigation || error.name === 'KeyRefused') say(error.message);
  }
}

document.getElementById('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  if (!keyInput.value.trim()) return;
  storeKey(keyInput.value.trim());
  keyInput.value = '';
  showKeyState();
  void route();
});
document.getElementById('key-forget').addEventListener('click', () => {
  forgetKey();
  showKeyState();
  say('');
  intro('Key forgotten.');
  keyInput.focus();
});
window.addEventListener('hashchange', () => void route({ focus: true }));
showKeyState();
void route();
