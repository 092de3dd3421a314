// How a ledger entry reads: its event, who caused it (or who a refused decision claimed to
// be), and the detail a person needs (a reason, why a decision was refused, the window).
import { h, muted } from './dom.js';

/** The principal ids an entry names: its actor, a decision's and a refusal's claimed one. */
export function principalsOf(entry) {
  const d = entry.detail ?? {};
  return [
    entry.actor?.principal_id,
    d.decision?.principal_id,
    d.claimed_by?.principal_id,
    d.last?.claimed_by?.principal_id,
  ].filter(Boolean);
}

const REFUSALS = new Set(['decision_refused', 'decisions_refused']);
export const isRefusal = (entry) => REFUSALS.has(entry.event);

/** `approve claimed by Ada Ops prn_… — not signed by the api` */
function refusalText(refusal, names) {
  if (!refusal) return [];
  return [
    h('strong', {}, refusal.decision ?? 'a decision'),
    ' claimed by ',
    refusal.claimed_by ? names.tag(refusal.claimed_by.principal_id) : muted('nobody named'),
    ' — refused: ',
    h('span', { class: 'problem' }, refusal.problem ?? 'no reason recorded'),
  ];
}

/** The event, with a refusal's reason and claimed principal beside it. */
export function eventCell(entry, names) {
  const d = entry.detail ?? {};
  const label = entry.event.replaceAll('_', ' ');
  if (entry.event === 'decision_refused') {
    return h(
      'div',
      { class: 'refusal' },
      h('span', { class: 'event bad' }, label),
      h('br'),
      refusalText(d, names),
    );
  }
  if (entry.event === 'decisions_refused') {
    return h(
      'div',
      { class: 'refusal' },
      h('span', { class: 'event bad' }, `${d.count ?? '?'} decisions refused`),
      ` (${d.since_last_entry ?? '?'} since the last entry); the last: `,
      refusalText(d.last, names),
    );
  }
  const note =
    typeof d.reason === 'string' ? d.reason : d.window ? `the ${d.window} window ended` : null;
  return h('span', {}, h('span', { class: 'event' }, label), note ? [h('br'), muted(note)] : []);
}

/** Who caused the entry; for a refusal, nobody did: the workflow refused a claim. */
export function byCell(entry, names) {
  if (entry.actor) return names.tag(entry.actor.principal_id);
  if (isRefusal(entry)) return muted('refused by the workflow');
  return muted('workflow');
}

/** The digest, shortened, whole in its tooltip. */
export const digestCell = (entry) =>
  h('code', { title: entry.digest }, `${entry.digest.slice(0, 19)}…`);
