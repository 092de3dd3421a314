// "Your keys": the signed-in principal's approver keys (passkeys and Ed25519 keys), with
// registering a passkey and revoking a key (docs/console.md, "Passkeys").
import { confirmDialog } from './dialog.js';
import { h, idCode, muted, status, table, when } from './dom.js';
import { pageProblem, registerPasskey } from './passkeys.js';

const KIND = { passkey: 'passkey', ed25519: 'Ed25519' };

/** Where a register or revoke says how it went: under its own buttons, not the top banner. */
const resultLine = (id) => h('p', { id, class: 'result', role: 'status', tabindex: '-1' });

/**
 * Says `text` on the line `id` of the view as it is now (a refresh renders the view again, so
 * the line is looked up, not kept), and moves the focus there unless `quiet`; the banner when
 * the keys view is no longer shown.
 */
function tell(ctx, id, text, { bad = false, quiet = false } = {}) {
  const line = document.getElementById(id);
  if (!line) return ctx.say(text, bad ? 'error' : 'info');
  line.textContent = text;
  line.className = `result ${bad ? 'bad' : 'ok'}`;
  if (!quiet) line.focus();
}

function revokeButton(ctx, key) {
  if (key.status !== 'active') return muted('—');
  return h(
    'button',
    {
      type: 'button',
      class: 'danger',
      'data-revoke': key.key_id,
      'aria-label': `Revoke ${key.name}`,
      onclick: async () => {
        const yes = await confirmDialog({
          title: `Revoke “${key.name}”?`,
          text: 'It signs nothing from now on, and an approval it signed that has not taken effect yet no longer counts. This cannot be undone.',
          confirmLabel: 'Revoke',
          danger: true,
        });
        if (!yes) return;
        try {
          await ctx.api('POST', '/v1/principals/me/keys/revoke', { key_id: key.key_id });
          await ctx.refresh();
          tell(ctx, 'keys-result', `Key “${key.name}” revoked.`);
        } catch (error) {
          tell(ctx, 'keys-result', error.message, { bad: true });
        }
      },
    },
    'Revoke',
  );
}

function keyTable(ctx, keys) {
  if (keys.length === 0) {
    return h('p', { class: 'muted', id: 'keys-empty' }, 'No approver keys yet.');
  }
  return table(
    ['Name', 'Kind', 'Created', 'Last used', 'Status', ''],
    keys.map((k) => ({
      id: k.key_id,
      cells: [
        h('span', {}, h('span', { class: 'name' }, k.name), h('br'), idCode(k.key_id)),
        KIND[k.kind] ?? k.kind,
        when(k.created_at),
        k.last_used_at ? when(k.last_used_at) : muted('never'),
        k.revoked_at ? h('span', {}, status(k.status), ' ', when(k.revoked_at)) : status(k.status),
        revokeButton(ctx, k),
      ],
    })),
  );
}

function registerForm(ctx) {
  const problem = pageProblem();
  const name = h('input', {
    id: 'passkey-name',
    name: 'name',
    required: true,
    maxlength: 128,
    placeholder: 'e.g. work laptop',
    autocomplete: 'off',
  });
  const button = h(
    'button',
    {
      type: 'submit',
      class: 'primary',
      id: 'passkey-register',
      disabled: Boolean(problem),
      'aria-describedby': problem ? 'passkey-problem' : undefined,
    },
    'Register a passkey',
  );
  const submit = async (event) => {
    event.preventDefault();
    if (!name.value.trim()) {
      tell(ctx, 'passkey-result', 'Name the passkey first (e.g. the device it lives on).', {
        bad: true,
        quiet: true,
      });
      name.focus();
      return;
    }
    button.disabled = true;
    tell(ctx, 'passkey-result', 'Confirm with your device (PIN, fingerprint or face)…', {
      quiet: true,
    });
    try {
      const key = await registerPasskey(ctx.api, name.value.trim());
      await ctx.refresh();
      tell(ctx, 'passkey-result', `Passkey “${key.name}” registered.`);
    } catch (error) {
      button.disabled = false;
      tell(ctx, 'passkey-result', error.message, { bad: true });
    }
  };
  return h(
    'form',
    { id: 'passkey-form', class: 'inline-form', autocomplete: 'off', onsubmit: submit },
    h('label', { for: 'passkey-name' }, 'Passkey name'),
    name,
    button,
    problem ? h('p', { class: 'problem', id: 'passkey-problem' }, problem) : null,
    resultLine('passkey-result'),
  );
}

export async function showKeys(ctx) {
  const keys = (await ctx.api('GET', '/v1/principals/me/keys')).items;
  const active = keys.filter((k) => k.status === 'active').length;
  return [
    h(
      'div',
      { class: 'toolbar' },
      h('h2', { class: 'title', id: 'keys-count' }, `Your keys: ${active} active`),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Register a passkey'),
      h(
        'p',
        { class: 'muted' },
        'A passkey signs your approvals and rejections on this device, with your PIN, fingerprint or face; rules that require the approver’s own signature accept nothing less. Ed25519 keys, for scripts and the command line, are registered through the api (POST /v1/principals/me/keys/register) and show here too.',
      ),
      registerForm(ctx),
    ),
    h(
      'section',
      { class: 'card spaced', id: 'keys' },
      h('h2', {}, 'Keys'),
      keyTable(ctx, keys),
      resultLine('keys-result'),
    ),
  ];
}
