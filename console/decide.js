// The decision box of an action's page: the reason, Approve / Reject / Execute with why each
// disabled one is disabled, and the result of a decision right beside the buttons, where the
// person is looking (docs/console.md, "Deciding"). A finished action has nothing left to
// decide: its outcome takes the box's place, and a decision's result shows there.
import { confirmDialog } from './dialog.js';
import { h, muted, when } from './dom.js';
import { passkeyAssertion, pageProblem } from './passkeys.js';

/** Statuses an action never leaves. */
export const FINISHED = new Set([
  'executed',
  'failed',
  'rejected',
  'expired',
  'dry_run_failed',
  'aborted',
]);

const LABELS = { approve: 'Approve', reject: 'Reject', execute: 'Execute' };

/** Reject and execute cannot be taken back: they ask first. Approve is bound to the plan shown. */
const CONFIRM = {
  reject: { title: 'Reject this action?', confirmLabel: 'Reject', danger: true },
  execute: { title: 'Execute this action now?', confirmLabel: 'Execute', danger: false },
};

/**
 * Why this person cannot sign an approval or rejection here under a rule that requires
 * their own signature, or null: the page signs only with a passkey of theirs, and only
 * where the browser offers passkeys. Parts of a sentence (text and a link).
 */
function signatureProblem(action, keys) {
  if (!action.rule?.require_approver_signature) return null;
  const problem = pageProblem();
  if (problem) return [`this rule needs your signature, and this page cannot make one; ${problem}`];
  const active = keys.filter((k) => k.status === 'active');
  if (active.some((k) => k.kind === 'passkey')) return null;
  return [
    'this rule needs your signature; register a passkey in ',
    h('a', { href: '#/keys' }, 'Your keys'),
    active.length ? ' (this page signs with passkeys only, not your Ed25519 key)' : '',
  ];
}

/** For each disabled button, the parts of the sentence that says why. */
function reasonsOf(action, keys) {
  const signature = signatureProblem(action, keys);
  const why = {};
  for (const decision of Object.keys(LABELS)) {
    if (!action.allowed[decision]) {
      why[decision] = [action.why_not?.[decision] ?? 'your key may not, for now'];
    } else if (decision !== 'execute' && signature) why[decision] = signature;
  }
  return why;
}

/**
 * One line per distinct reason ("Approve, Reject: you proposed it…"); answers the list and,
 * per decision, the id of its line for the button's `aria-describedby`.
 */
function reasonList(why) {
  const groups = new Map();
  for (const [decision, parts] of Object.entries(why)) {
    const key = parts.map((p) => (typeof p === 'string' ? p : p.textContent)).join('');
    if (!groups.has(key)) groups.set(key, { decisions: [], parts });
    groups.get(key).decisions.push(decision);
  }
  const ids = {};
  const items = [...groups.values()].map(({ decisions, parts }) => {
    const id = `why-${decisions[0]}`;
    for (const decision of decisions) ids[decision] = id;
    return h(
      'li',
      { id },
      h('strong', {}, decisions.map((d) => LABELS[d]).join(', ')),
      ': ',
      parts,
    );
  });
  return { ids, list: items.length ? h('ul', { class: 'why', id: 'why' }, items) : null };
}

/** Where a decision's result shows: beside the buttons, focusable so the focus can go there. */
const resultLine = () =>
  h('p', { id: 'decision-result', class: 'result', role: 'status', tabindex: '-1' });

function show(line, text, kind) {
  line.textContent = text;
  line.className = `result ${kind}`;
}

/**
 * After a decision the page shows the action as it now is (a refused decision usually
 * means it changed); the result then goes beside the new buttons, with the focus, if the
 * page still shows this action, else to the banner.
 */
/**
 * Waits (a few seconds at most) until the action as read reaches `status`, the one the
 * decision answered: the answer comes from the workflow, a read from the record it writes
 * next, so a read right after a decision can still show the status before it.
 */
async function caughtUp(api, id, status) {
  if (!status) return;
  for (let tries = 0; tries < 40; tries += 1) {
    const now = await api('GET', `/v1/external-actions/${id}`).catch(() => undefined);
    if (!now || now.status === status) return;
    await new Promise((resolve) => window.setTimeout(resolve, 250));
  }
}

async function settle(ctx, actionId, text, kind) {
  await ctx.refresh();
  const line = document.getElementById('decision-result');
  if (line?.closest(`[data-action="${actionId}"]`)) {
    show(line, text, kind);
    line.focus();
  } else ctx.say(text, kind === 'bad' ? 'error' : 'info');
}

function decider(ctx, action, reason, buttons, result) {
  const { api, say } = ctx;
  const id = action.action_id;
  return (decision) => async () => {
    const ask = CONFIRM[decision];
    const text =
      decision === 'execute'
        ? `${action.action_kind} takes effect on its target; this cannot be undone.`
        : 'The action ends rejected; nobody can approve it afterwards.';
    if (ask && !(await confirmDialog({ ...ask, text }))) return;
    const signs = decision !== 'execute' && action.rule?.require_approver_signature === true;
    // The focus goes where the answer will show before the buttons are disabled: a focused
    // button that becomes disabled would drop it to the page.
    show(
      result,
      signs ? 'Confirm with your passkey (PIN, fingerprint or face)…' : `Sending ${decision}…`,
      'info',
    );
    result.focus();
    for (const button of buttons) button.disabled = true;
    try {
      const body =
        decision === 'execute'
          ? {}
          : { reason: reason?.value || undefined, plan_digest: action.dry_run?.plan_digest };
      if (signs) {
        const assertion = await passkeyAssertion(api, id, decision, body.plan_digest);
        // Without a passkey the decision goes bare: the api's 403 names the rule and what to do.
        if (assertion) body.approver_assertion = assertion;
      }
      const answer = await api('POST', `/v1/external-actions/${id}/${decision}`, body);
      await caughtUp(api, id, answer?.status);
      await settle(
        ctx,
        id,
        `${decision} recorded${signs ? ', signed with your passkey' : ''}`,
        'ok',
      );
    } catch (error) {
      // A refused key already cleared the page and took the focus to the key field.
      if (error.name === 'KeyRefused') return say(error.message);
      const message =
        signs && error.status === 403 && /own signature/.test(error.message)
          ? `${error.message}. In this console: Your keys → Register a passkey.`
          : error.message;
      await settle(ctx, id, `${decision} not recorded: ${message}`, 'bad');
    }
  };
}

/** The box for an action still open: reason, buttons, the result line and why not. */
function openBox(ctx, action, keys) {
  const why = reasonsOf(action, keys);
  const { ids, list } = reasonList(why);
  const takesReason = !why.approve || !why.reject;
  const reason = takesReason
    ? h('textarea', { id: 'decision-reason', placeholder: 'Reason (kept in the ledger)' })
    : null;
  const result = resultLine();
  const buttons = [];
  const decide = decider(ctx, action, reason, buttons, result);
  const button = (decision, className) =>
    h(
      'button',
      {
        type: 'button',
        class: className,
        id: decision,
        disabled: Boolean(why[decision]),
        'aria-describedby': ids[decision],
        onclick: decide(decision),
      },
      LABELS[decision],
    );
  buttons.push(button('approve', 'primary'), button('reject', 'danger'), button('execute'));
  return h(
    'div',
    { class: 'decide', 'data-action': action.action_id },
    h(
      'h2',
      { class: 'spaced' },
      reason ? h('label', { for: 'decision-reason' }, 'Decide') : 'Decide',
    ),
    reason,
    h('div', { class: 'buttons' }, buttons),
    result,
    list,
  );
}

/** The final ledger entry's own words, when it has some. */
function finalNote(entry) {
  const d = entry?.detail ?? {};
  if (typeof d.reason === 'string') return d.reason;
  if (d.window) return `the ${d.window} window ended`;
  const t = d.temporal;
  if (t) {
    const by = t.identity ? ` by ${t.identity}` : '';
    return `its workflow was ${String(t.status).toLowerCase()} in Temporal${by}${t.reason ? `: ${t.reason}` : ''}`;
  }
  return null;
}

/** What happened to a finished action, in one sentence, and what execution answered. */
function outcomeOf(action, { names, ledger }) {
  const at = action.status_timestamps?.[action.status] ?? action.updated_at;
  const last = (kind) => action.decisions.filter((d) => d.decision === kind).at(-1);
  const note = finalNote(ledger.items.find((e) => e.status === action.status));
  const execution = action.execution;
  switch (action.status) {
    case 'executed': {
      const by = last('execute');
      return [
        [
          'Executed ',
          when(at),
          ' ',
          by
            ? ['by ', names.tag(by.principal_id)]
            : 'by the workflow (the rule executes on approval)',
        ],
        execution?.result,
      ];
    }
    case 'failed':
      return [
        ['Execution failed ', when(at), ': ', execution?.reason ?? note ?? 'no reason recorded'],
        execution?.result,
      ];
    case 'rejected': {
      const by = last('reject');
      return [
        [
          'Rejected by ',
          by ? names.tag(by.principal_id) : muted('nobody named'),
          ' ',
          when(by?.at ?? at),
          by?.reason ? ` — ${by.reason}` : ' (no reason given)',
        ],
      ];
    }
    case 'dry_run_failed':
      return [['The dry run failed: ', action.dry_run?.policy?.reasons.join('; ') ?? note]];
    case 'expired':
      return [['Expired ', when(at), note ? `: ${note}` : '']];
    default:
      return [['Aborted ', when(at), note ? `: ${note}` : '']];
  }
}

/** A finished action: what happened, and the result line a decision just taken shows in. */
function outcomeBox(action, context) {
  const [sentence, result] = outcomeOf(action, context);
  return h(
    'div',
    { class: 'decide outcome', id: 'outcome', 'data-action': action.action_id },
    h('h2', { class: 'spaced' }, 'Outcome'),
    h('p', { id: 'outcome-text' }, sentence),
    result && Object.keys(result).length
      ? h('pre', { class: 'mono', id: 'execution-result' }, JSON.stringify(result, null, 2))
      : null,
    resultLine(),
  );
}

/**
 * The decision box, or a finished action's outcome. `keys` are the caller's approver keys
 * (asked for only under a rule that requires their signature), `ledger` the action's.
 */
export function decisionBox(ctx, action, { keys, ledger }) {
  if (FINISHED.has(action.status)) return outcomeBox(action, { names: ctx.names, ledger });
  return openBox(ctx, action, keys);
}
