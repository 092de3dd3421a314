import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createDecisionSigner, type DecisionSigner } from '../../src/auth/decision-signer';
import type { SecurityEvent, WorkerTrust } from '../../src/domain/worker-trust';
import { newId } from '../../src/lib/ids';
import { createWorkerTrust } from '../../src/worker/trust';
import { openAction } from '../../src/workflows/action-machine';
import { TEST_SERVERS } from '../test-env';
import {
  proposalClaimOf,
  type ActionDecision,
  type ActionState,
  type ActionWorkflowInput,
} from '../../src/workflows/external-action.contract';

/** A signer standing in for the api, and a worker trust that accepts it (and reports). */
export function signingWorld(seed = randomBytes(32)): {
  signer: DecisionSigner;
  trust: WorkerTrust;
  reported: SecurityEvent[];
} {
  const signer = createDecisionSigner(seed);
  const reported: SecurityEvent[] = [];
  const trust = createWorkerTrust(
    {
      keyPepper: 'unused',
      decisionSigningKey: seed.toString('hex'),
      // Its own ledger seal key and checkpoint file, as a test app's (test-app.ts).
      ledgerSealKey: randomBytes(32).toString('hex'),
      ledgerCheckpointDir: join(TEST_SERVERS.dataDir, 'ledger-checkpoints'),
      mongodbDb: `signing-world-${randomBytes(4).toString('hex')}`,
    },
    async (event) => {
      reported.push(event);
    },
  );
  return { signer, trust, reported };
}

/** A start input as the api signs it. */
export function signedInput(
  signer: DecisionSigner,
  fields: Pick<ActionWorkflowInput, 'action_id' | 'contract'> & Partial<ActionWorkflowInput>,
): ActionWorkflowInput {
  const input: ActionWorkflowInput = {
    proposed_by: { principal_id: 'prn_proposer', key_id: 'proposerkey0' },
    created_at: new Date().toISOString(),
    rule: null,
    ...fields,
  };
  return { ...input, proposal_signature: signer.signClaim('proposal', proposalClaimOf(input)) };
}

/** A decision as the api signs it and the workflow keeps it. */
export function signedDecision(
  signer: DecisionSigner,
  actionId: string,
  decision: ActionDecision['decision'],
  principalId: string,
  planDigest: string | null,
): ActionDecision {
  const claim = {
    action_id: actionId,
    decision,
    principal_id: principalId,
    key_id: `${principalId.slice(-8)}key0`,
    role: 'member',
    plan_digest: planDigest,
    reason: null,
  };
  const signed = signer.sign(claim);
  return { ...claim, ...signed, at: signed.signed_at };
}

/** The state an action workflow holds, with its signed proposal (as its workflow opens it). */
export function stateOf(
  input: ActionWorkflowInput,
  fields: Partial<ActionState> = {},
): ActionState {
  const run = { workflow_id: `action-${input.action_id}`, run_id: 'run', first_run_id: 'run' };
  return {
    ...openAction(input, run).state,
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    seq: 1,
    ...fields,
  };
}

/**
 * A `notify` action's start input, signed as the api signs a proposal: for tests that start
 * an action workflow directly (a window or timeout shorter than the api allows).
 */
export function signedNotifyInput(
  signer: Pick<DecisionSigner, 'signClaim'>,
  proposer: { principalId: string; keyId: string },
  message: string,
  expiresInSeconds: number,
): ActionWorkflowInput {
  const unsigned: ActionWorkflowInput = {
    action_id: newId('act'),
    contract: {
      action_kind: 'notify',
      target: {},
      parameters: { message },
      bounds: { allowed_fields: [], expires_in_seconds: expiresInSeconds, required_approvals: 1 },
      shared_context_id: null,
      reason: null,
    },
    proposed_by: { principal_id: proposer.principalId, key_id: proposer.keyId },
    created_at: new Date().toISOString(),
  };
  return {
    ...unsigned,
    proposal_signature: signer.signClaim('proposal', proposalClaimOf(unsigned)),
  };
}
