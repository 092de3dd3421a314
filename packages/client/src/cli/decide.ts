import { GovernedApiError } from '../errors';
import { signDecision, type ApproverAssertion } from '../sign-decision';
import { planLines } from './action-view';
import { readAction, report } from './action-read';
import { changeText, targetText } from './action-words';
import { confirm } from './confirm';
import { CliError, HintedApiError } from './fail';
import { namesOf } from './names';
import type { CommonFlags, Session } from './session';
import {
  configuredSigningKey,
  registeredSigner,
  type Signer,
  type SigningKeyFlags,
} from './signing-key';

export interface DecideFlags extends CommonFlags, SigningKeyFlags {
  reason?: string;
  digest?: string;
  yes?: boolean;
}

/** What to do when a rule wants the approver's own signature and none was sent. */
export const NO_SIGNING_KEY_HINT =
  'gr: no signing key is configured: run gr keys create (it registers a new key and signs with it), or gr keys register ~/.ssh/id_ed25519.pub and pass --signing-key ~/.ssh/id_ed25519 (or set GR_SIGNING_KEY)';

/**
 * Approves or rejects naming the plan digest: the one given, else the one the action shows
 * now (printed first, so what was decided on is on screen). The service refuses (409) when
 * the plan has changed since. With a signing key configured, the decision also carries the
 * approver's own signature over a fresh challenge for exactly that action, decision and
 * plan (docs/approvals.md); the key is checked to be registered before anything is asked.
 */
export async function decide(
  session: Session,
  decision: 'approve' | 'reject',
  id: string,
  flags: DecideFlags,
): Promise<void> {
  const { out } = session;
  const source = configuredSigningKey(flags);
  const [action, signer] = await Promise.all([
    readAction(session, id),
    source ? registeredSigner(session.client, source) : undefined,
  ]);
  const names = out.json ? new Map<string, string>() : await namesOf(session.client, action);
  const digest = flags.digest ?? action.dry_run?.plan_digest ?? undefined;
  if (!out.json) {
    out.line(`${decision} ${action.action_id} (${action.action_kind}, ${action.status})`);
    out.line(`  target      ${targetText(action, names)}`);
    for (const line of planLines(action.dry_run, out.style)) out.line(line);
    out.line(`  bound to plan ${digest ?? '(none: not planned)'}`);
    if (signer) out.line(`  signed with approver key ${signer.keyId} (${signer.path})`);
  }
  // The question names the change and where, so a yes is to that and nothing else.
  const question = `${decision} ${id}: ${changeText(action, names)}?`;
  if (!flags.yes && !out.json && (await confirm(question)) === false) {
    // Declining is not success: a script or a shell's `&&` must not go on as if decided.
    throw new CliError(`${decision} ${id} declined at the prompt: nothing sent`);
  }
  try {
    const assertion =
      signer && digest ? await signedAssertion(session, signer, id, decision, digest) : undefined;
    const { data } = await session.client.POST(`/v1/external-actions/{action_id}/${decision}`, {
      params: { path: { action_id: id } },
      body: {
        ...(flags.reason ? { reason: flags.reason } : {}),
        ...(digest ? { plan_digest: digest } : {}),
        ...(assertion ? { approver_assertion: assertion } : {}),
      },
    });
    report(session, data!.payload, names);
  } catch (error) {
    throw withHint(error, signer);
  }
}

/** Asks for a challenge naming this decision and signs it (`signDecision` checks what it names). */
async function signedAssertion(
  session: Session,
  signer: Signer,
  id: string,
  decision: 'approve' | 'reject',
  digest: string,
): Promise<ApproverAssertion> {
  const { data } = await session.client.POST('/v1/external-actions/{action_id}/challenge', {
    params: { path: { action_id: id } },
    body: { decision, plan_digest: digest },
  });
  return signDecision(data!.payload, signer, { action_id: id, decision, plan_digest: digest });
}

/** The service's 403 about approver signatures, with what to type next. */
function withHint(error: unknown, signer: Signer | undefined): unknown {
  if (!(error instanceof GovernedApiError) || error.status !== 403) return error;
  if (!signer && /approver's own signature/.test(error.message)) {
    return new HintedApiError(error, NO_SIGNING_KEY_HINT);
  }
  if (signer && /challenge expired/.test(error.message)) {
    return new HintedApiError(
      error,
      'gr: the signature came too late; run the command again (it asks for a fresh challenge)',
    );
  }
  return error;
}
