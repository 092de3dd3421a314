import { verifyAuthenticationResponse } from '@simplewebauthn/server';
import {
  approverChallengeMessage,
  webauthnChallengeOf,
  type ApproverAssertion,
  type ApproverChallenge,
} from '../../signing/approver-challenge';
import { verifyEd25519 } from '../../signing/ed25519-node';
import type { ApproverKey } from '../../store/approver-keys.repo';
import type { ActionRule } from '../../workflows/external-action.contract';

/** Where passkeys are valid: the relying party id and the origins a ceremony may come from. */
export interface RelyingParty {
  rpId: string;
  origins: readonly string[];
}

/** What the verifier knows itself about the decision an assertion claims to sign. */
export interface AssertedDecision {
  action_id: string;
  decision: 'approve' | 'reject';
  plan_digest: string | null;
  rule: Pick<ActionRule, 'rule_id' | 'version'> | null;
  principal_id: string;
}

/** How a key must stand: active now (api, worker), or not revoked before `activeAt` (proofs). */
/**
 * Which key standing a check asks for: active now (the api at the decision, the worker
 * before the effect) or not revoked before a moment (proofs). Only the api, which sees an
 * assertion first, checks a passkey's signature counter moved on (`freshCounter`): it then
 * stores the new counter, so later checks of the same assertion would see it as a replay.
 */
export type KeyStanding = { activeNow: true; freshCounter?: boolean } | { activeAt: string };

export type AssertionVerdict = { problem: string } | { problem: null; counter?: number };

/** The challenge an assertion answers, rebuilt from what the verifier knows. */
export const challengeOf = (
  decision: AssertedDecision,
  assertion: Pick<ApproverAssertion, 'nonce' | 'expires_at'>,
): ApproverChallenge => ({
  action_id: decision.action_id,
  decision: decision.decision,
  plan_digest: decision.plan_digest ?? '',
  rule_id: decision.rule?.rule_id ?? null,
  rule_version: decision.rule?.version ?? null,
  principal_id: decision.principal_id,
  nonce: assertion.nonce,
  expires_at: assertion.expires_at,
});

/**
 * Why an approver's assertion does not show that `decision.principal_id` made this decision
 * with one of their own keys, or null (with a passkey's new signature counter). The same
 * judgement for the api at the decision, the worker before the effect and the proof check:
 * the key must be the decider's, stand as `standing` asks, and its signature must hold over
 * the challenge rebuilt from the decision (never from bytes the signer supplies). Expiry and
 * single use are the caller's to check (each knows a different clock).
 */
export async function assertionProblem(
  assertion: ApproverAssertion | undefined,
  decision: AssertedDecision,
  key: ApproverKey | undefined | null,
  relyingParty: RelyingParty,
  standing: KeyStanding,
): Promise<AssertionVerdict> {
  const who = `the ${decision.decision} of ${decision.principal_id}`;
  if (!assertion) return { problem: `${who} carries no approver signature` };
  if (!key)
    return { problem: `${who} names approver key ${assertion.key_id}, which is not registered` };
  if (key.principal_id !== decision.principal_id) {
    return {
      problem: `approver key ${key._id} belongs to another principal, not ${decision.principal_id}`,
    };
  }
  const revokedTooEarly =
    'activeNow' in standing
      ? key.status === 'revoked'
      : key.revoked_at !== null && key.revoked_at <= standing.activeAt;
  if (revokedTooEarly)
    return { problem: `approver key ${key._id} was revoked at ${key.revoked_at}` };
  if (!decision.plan_digest) return { problem: `${who} names no plan` };
  const challenge = challengeOf(decision, assertion);
  if (key.kind === 'ed25519') {
    if (!assertion.signature) return { problem: `${who} carries no Ed25519 signature` };
    const holds = verifyEd25519(
      key.public_key,
      approverChallengeMessage(challenge),
      assertion.signature,
    );
    return holds ? { problem: null } : { problem: `the approver signature does not match ${who}` };
  }
  const freshCounter = 'activeNow' in standing && standing.freshCounter === true;
  return passkeyProblem(assertion, challenge, key, relyingParty, who, freshCounter);
}

async function passkeyProblem(
  assertion: ApproverAssertion,
  challenge: ApproverChallenge,
  key: ApproverKey,
  relyingParty: RelyingParty,
  who: string,
  checkCounter: boolean,
): Promise<AssertionVerdict> {
  const webauthn = assertion.webauthn;
  if (!webauthn) return { problem: `${who} carries no passkey assertion` };
  if (webauthn.credential_id !== key.credential_id) {
    return { problem: `the passkey assertion is by another credential than key ${key._id}` };
  }
  try {
    const result = await verifyAuthenticationResponse({
      response: {
        id: webauthn.credential_id,
        rawId: webauthn.credential_id,
        type: 'public-key',
        clientExtensionResults: {},
        response: {
          authenticatorData: webauthn.authenticator_data,
          clientDataJSON: webauthn.client_data_json,
          signature: webauthn.signature,
          ...(webauthn.user_handle ? { userHandle: webauthn.user_handle } : {}),
        },
      },
      expectedChallenge: webauthnChallengeOf(challenge),
      expectedOrigin: [...relyingParty.origins],
      expectedRPID: relyingParty.rpId,
      credential: {
        id: key.credential_id,
        publicKey: new Uint8Array(Buffer.from(key.public_key, 'base64url')),
        // Later checks (worker, proofs) see the counter the api already advanced past.
        counter: checkCounter ? (key.counter ?? 0) : 0,
      },
      requireUserVerification: true,
    });
    if (!result.verified) return { problem: `the passkey assertion does not match ${who}` };
    return { problem: null, counter: result.authenticationInfo.newCounter };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { problem: `the passkey assertion does not hold for ${who}: ${message}` };
  }
}
