// Small DOM helpers shared by the views: everything from the API goes in as text.

/** Builds an element; strings become text nodes, so nothing from the API is parsed as HTML. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** `in 12 min` / `3 h ago`, the exact instant in its tooltip. */
export function when(iso) {
  if (!iso) return '—';
  const ms = Date.parse(iso) - Date.now();
  const minutes = Math.round(Math.abs(ms) / 60000);
  const span = minutes < 60 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
  return h('time', { datetime: iso, title: iso }, ms >= 0 ? `in ${span}` : `${span} ago`);
}

export const status = (value) =>
  h('span', { class: `status ${value}` }, value.replaceAll('_', ' '));

export const muted = (text) => h('span', { class: 'muted' }, text);

/** An id as people copy it: whole, monospaced, selected in one click. */
export const idCode = (id) => h('code', { class: 'id', title: id }, id);

/** A link to an action's page: the keyboard's way into a row (Enter, and Space like a button). */
export const actionLink = (id, label) =>
  h(
    'a',
    {
      href: `#/action/${id}`,
      class: 'open',
      onkeydown: (event) => {
        if (event.key === ' ') {
          event.preventDefault();
          location.hash = `#/action/${id}`;
        }
      },
    },
    label,
  );

/**
 * A table whose rows may open something; each cell carries its column's name (`data-label`),
 * which narrow screens show beside the value when rows become cards (console.css).
 */
export function table(headers, rows, { onOpen, className = 'rows' } = {}) {
  if (rows.length === 0) return h('p', { class: 'muted', id: 'empty' }, 'Nothing here.');
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      { class: className },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((title) => h('th', { scope: 'col' }, title)),
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
            cells.map((cell, index) => h('td', { 'data-label': headers[index] }, cell)),
          ),
        ),
      ),
    ),
  );
}
