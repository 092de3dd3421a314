import { sign, type KeyObject } from 'node:crypto';
import type { paths } from './schema';

/** What `POST /v1/external-actions/{action_id}/challenge` answers. */
export type DecisionChallenge =
  paths['/v1/external-actions/{action_id}/challenge']['post']['responses'][200]['content']['application/json']['payload'];
/** What an approval or rejection carries as `approver_assertion`. */
export type ApproverAssertion = {
  key_id: string;
  nonce: string;
  expires_at: string;
  signature: string;
};

/** The first element of the signed array: the version of the signed bytes. */
export const APPROVER_CHALLENGE_VERSION = 'governed-runtime/approver-decision/v1';

/**
 * The bytes an approver signs (docs/approvals.md, "The signed bytes"): the UTF-8 of this
 * JSON array as `JSON.stringify` writes it. Rebuilt here from the challenge's fields, so
 * the signer never signs text it has not read field by field.
 */
export function approverChallengeBytes(
  challenge: Pick<
    DecisionChallenge,
    | 'action_id'
    | 'decision'
    | 'plan_digest'
    | 'rule_id'
    | 'rule_version'
    | 'principal_id'
    | 'nonce'
    | 'expires_at'
  >,
): Buffer {
  return Buffer.from(
    JSON.stringify([
      APPROVER_CHALLENGE_VERSION,
      challenge.action_id,
      challenge.decision,
      challenge.plan_digest,
      challenge.rule_id,
      challenge.rule_version,
      challenge.principal_id,
      challenge.nonce,
      challenge.expires_at,
    ]),
    'utf8',
  );
}

/** What the signer means to decide: a challenge naming anything else is not signed. */
export interface IntendedDecision {
  action_id: string;
  decision: 'approve' | 'reject';
  /** The plan the approver reviewed. */
  plan_digest: string;
}

/**
 * Signs a decision challenge with the approver's Ed25519 key and answers the
 * `approver_assertion` to send with the decision. Refuses (throws) a challenge whose
 * `message` is not the bytes its own fields make, or that names another action, decision
 * or plan than `intended`: a signature must say what the approver saw, whatever the
 * service that issued the challenge claims.
 */
export function signDecision(
  challenge: DecisionChallenge,
  signer: { keyId: string; privateKey: KeyObject },
  intended: IntendedDecision,
): ApproverAssertion {
  const bytes = approverChallengeBytes(challenge);
  if (bytes.toString('utf8') !== challenge.message) {
    throw new Error('the challenge message is not the bytes its fields make; not signed');
  }
  for (const field of ['action_id', 'decision', 'plan_digest'] as const) {
    if (challenge[field] !== intended[field]) {
      throw new Error(
        `the challenge names ${field} ${challenge[field]}, not ${intended[field]}; not signed`,
      );
    }
  }
  if (signer.privateKey.asymmetricKeyType !== 'ed25519') {
    throw new Error('only an Ed25519 key signs decisions');
  }
  return {
    key_id: signer.keyId,
    nonce: challenge.nonce,
    expires_at: challenge.expires_at,
    signature: sign(null, bytes, signer.privateKey).toString('hex'),
  };
}
