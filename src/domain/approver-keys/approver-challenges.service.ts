import type { AuthContext } from '../../auth/auth-context';
import {
  approverChallengeMessage,
  webauthnChallengeOf,
  type ApproverAssertion,
  type ApproverChallenge,
} from '../../signing/approver-challenge';
import { Forbidden, found, InvalidState } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { DomainInfra } from '../infra';
import { assertionProblem } from './approver-assertion';
import type { ApproverAssertionInput } from '../external-actions/schemas';
import type { ChallengeBody } from './schemas';

type Deps = Pick<DomainInfra, 'config' | 'repos'>;

/**
 * `POST /v1/external-actions/{action_id}/challenge`: a single-use nonce with a short expiry
 * and the exact bytes the caller signs to approve or reject this action's plan
 * (`src/signing/approver-challenge.ts`), with their passkeys for `navigator.credentials.get`.
 */
export async function issueDecisionChallenge(
  deps: Deps,
  auth: AuthContext,
  actionId: string,
  body: ChallengeBody,
) {
  const action = await found(deps.repos.externalActions.findById(actionId), `action ${actionId}`);
  if (action.status !== 'awaiting_approval') {
    throw new InvalidState(`cannot ${body.decision} an action that is ${action.status}`, {
      extra: { status: action.status },
    });
  }
  const planDigest = body.plan_digest ?? action.dry_run?.plan_digest;
  if (!planDigest) throw new InvalidState(`action ${actionId} has no plan to sign`);
  const issuedAt = new Date();
  const challenge: ApproverChallenge = {
    action_id: actionId,
    decision: body.decision,
    plan_digest: planDigest,
    rule_id: action.rule?.rule_id ?? null,
    rule_version: action.rule?.version ?? null,
    principal_id: auth.principalId,
    nonce: newId('ach'),
    expires_at: new Date(
      issuedAt.getTime() + deps.config.approverChallengeTtlSeconds * 1000,
    ).toISOString(),
  };
  const [, keys] = await Promise.all([
    deps.repos.approverKeys.issueChallenge({
      _id: challenge.nonce,
      purpose: 'decision',
      principal_id: auth.principalId,
      issued_at: issuedAt.toISOString(),
      expires_at: challenge.expires_at,
      action_id: actionId,
      decision: body.decision,
      plan_digest: planDigest,
      rule_id: challenge.rule_id,
      rule_version: challenge.rule_version,
    }),
    deps.repos.approverKeys.ofPrincipal(auth.principalId),
  ]);
  const message = approverChallengeMessage(challenge);
  return {
    ...challenge,
    message: new TextDecoder().decode(message),
    message_base64: Buffer.from(message).toString('base64'),
    webauthn_challenge: webauthnChallengeOf(challenge),
    allow_credentials: keys
      .filter((k) => k.kind === 'passkey' && k.status === 'active' && k.credential_id)
      .map((k) => ({ id: k.credential_id!, type: 'public-key' })),
    rp_id: deps.config.webauthnRpId,
  };
}

/** An Ed25519 signature as hex, whether it came as hex or base64. */
const signatureHex = (signature: string): string =>
  /^[0-9a-fA-F]{128}$/.test(signature)
    ? signature.toLowerCase()
    : Buffer.from(signature.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('hex');

/** An approver's checked assertion, and the key's use to record beside the decision. */
export interface VerifiedAssertion {
  assertion: ApproverAssertion;
  /** The plan the approver signed: the decision binds it. */
  planDigest: string;
  /** Writes the key's `last_used_at` (and a passkey's new counter); never needed before. */
  recordUse(): Promise<void>;
}

/** The decision an assertion must sign, as the request names it. */
export interface DecisionToSign {
  action_id: string;
  decision: 'approve' | 'reject';
  /** The plan the caller named, if any; otherwise the challenge's (the one they signed). */
  plan_digest: string | null;
}

/**
 * Checks an approver's assertion at the api, before the decision goes to the workflow: the
 * challenge was issued to this caller for exactly this action and decision (and the plan the
 * caller names, if any), it has not expired and was not used, and the signature holds with
 * one of the caller's active keys over the challenge's bytes. Every failure is 403 naming
 * what is wrong.
 *
 * The challenge the api stored says which plan and rule version the approver signed, so the
 * action is not read here: the workflow refuses a plan that is no longer current (409), and
 * the worker checks the signature against the signed proposal's rule. The challenge is spent
 * by its first use, accepted or not, in the same round trip as the reads of the challenge and
 * the key (docs/approvals.md, "Cost"): a refused attempt asks for a new challenge, and nobody
 * can try signatures against one.
 */
export async function verifiedAssertion(
  deps: Deps,
  auth: AuthContext,
  decision: DecisionToSign,
  input: ApproverAssertionInput,
): Promise<VerifiedAssertion> {
  const { approverKeys } = deps.repos;
  const usedAt = new Date().toISOString();
  const [challenge, key, firstUse] = await Promise.all([
    approverKeys.findChallenge(input.nonce),
    approverKeys.findById(input.key_id),
    approverKeys.consumeChallenge(input.nonce, usedAt),
  ]);
  const refuse = (problem: string) =>
    new Forbidden(`approver signature refused: ${problem}`, {
      extra: { approver_key_id: input.key_id, nonce: input.nonce },
    });
  if (!challenge || challenge.purpose !== 'decision' || !challenge.plan_digest)
    throw refuse(`no challenge ${input.nonce} was issued`);
  const signedPlan = challenge.plan_digest;
  if (challenge.principal_id !== auth.principalId)
    throw refuse('the challenge was issued to another principal');
  const mismatch =
    challenge.action_id !== decision.action_id
      ? `the challenge is for action ${challenge.action_id}`
      : challenge.decision !== decision.decision
        ? `the challenge is to ${challenge.decision}, not to ${decision.decision}`
        : decision.plan_digest !== null && challenge.plan_digest !== decision.plan_digest
          ? `the challenge names plan ${challenge.plan_digest}, not ${decision.plan_digest}`
          : challenge.expires_at !== input.expires_at
            ? 'expires_at is not the challenge’s'
            : null;
  if (mismatch) throw refuse(mismatch);
  if (Date.parse(usedAt) > Date.parse(challenge.expires_at)) {
    throw refuse(`the challenge expired at ${challenge.expires_at}; ask for a new one`);
  }
  const assertion: ApproverAssertion = {
    key_id: input.key_id,
    nonce: input.nonce,
    expires_at: input.expires_at,
    ...(input.signature ? { signature: signatureHex(input.signature) } : {}),
    ...(input.webauthn ? { webauthn: input.webauthn } : {}),
  };
  const verdict = await assertionProblem(
    assertion,
    {
      action_id: decision.action_id,
      decision: decision.decision,
      plan_digest: signedPlan,
      rule: challenge.rule_id
        ? { rule_id: challenge.rule_id, version: challenge.rule_version ?? 0 }
        : null,
      principal_id: auth.principalId,
    },
    key,
    { rpId: deps.config.webauthnRpId, origins: deps.config.webauthnOrigins },
    { activeNow: true, freshCounter: true },
  );
  if (verdict.problem !== null) throw refuse(verdict.problem);
  if (!firstUse) throw refuse(`challenge ${input.nonce} was used already`);
  return {
    assertion,
    planDigest: signedPlan,
    // The verdict holds, so the key exists; a passkey's counter moves on with its last use.
    recordUse: () =>
      approverKeys.markUsed(
        input.key_id,
        usedAt,
        key?.kind === 'passkey' ? verdict.counter : undefined,
      ),
  };
}
