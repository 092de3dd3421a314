// A confirmation before a decision that cannot be taken back: a native modal <dialog>, so
// focus stays inside it, Escape closes it (nothing is sent) and focus returns to the button
// that opened it.
import { h } from './dom.js';

/** Resolves true when the person confirms, false on Cancel or Escape. */
export function confirmDialog({ title, text, confirmLabel, danger = false }) {
  return new Promise((resolve) => {
    const opener = document.activeElement;
    const cancel = h('button', { type: 'button', id: 'confirm-cancel' }, 'Cancel');
    const confirm = h(
      'button',
      { type: 'button', id: 'confirm-yes', class: danger ? 'danger' : 'primary' },
      confirmLabel,
    );
    const dialog = h(
      'dialog',
      { id: 'confirm', 'aria-labelledby': 'confirm-title' },
      h('h2', { id: 'confirm-title' }, title),
      h('p', {}, text),
      h('div', { class: 'buttons' }, cancel, confirm),
    );
    let answer = false;
    cancel.addEventListener('click', () => dialog.close());
    confirm.addEventListener('click', () => {
      answer = true;
      dialog.close();
    });
    // Escape fires `cancel`, then `close`; every way out ends here.
    dialog.addEventListener('close', () => {
      dialog.remove();
      if (opener?.isConnected && typeof opener.focus === 'function') opener.focus();
      resolve(answer);
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}
