import type { SecurityEvent, WorkerTrust } from '../domain/worker-trust';
import { acceptedSignerKeys, createDecisionSigner, decisionSeed } from '../auth/decision-signer';
import { createActionAuthority } from '../domain/external-actions/authority';
import { createLedgerSeal, ledgerSealSeed } from '../domain/external-actions/ledger-seal';
import { createCheckpointIndex } from '../domain/external-actions/checkpoint-index';
import { createAuditSeal } from '../domain/governance/audit-seal';
import { claimMessage, signatureProblem } from '../signing/signed-claims';

/**
 * The worker's trust, from its own configuration: the keys it accepts (`DECISION_VERIFY_KEYS`,
 * else its own signing key's) and the signing key it signs derived proposals with
 * (`DECISION_SIGNING_KEY`, else derived from `KEY_PEPPER`, as the api's), and the ledger seal
 * its records are sealed and checkpointed with (`LEDGER_SEAL_KEY`, likewise), which also
 * verifies the admin audit's seals and checkpoints, and the index of those checkpoints its
 * records and effects check the ledger against.
 */
export function createWorkerTrust(
  config: {
    decisionSigningKey?: string;
    decisionVerifyKeys?: readonly string[];
    keyPepper: string;
    webauthnRpId?: string;
    webauthnOrigins?: readonly string[];
    ledgerSealKey?: string;
    ledgerSealVerifyKeys?: readonly string[];
    ledgerCheckpointDir: string;
    mongodbDb: string;
  },
  reportSecurityEvent: (event: SecurityEvent) => Promise<void>,
): WorkerTrust {
  const signer = createDecisionSigner(decisionSeed(config));
  const accepted = acceptedSignerKeys(config, signer);
  const ledgerSeal = createLedgerSeal({
    seed: ledgerSealSeed(config),
    acceptedKeys: config.ledgerSealVerifyKeys,
    checkpointDir: config.ledgerCheckpointDir,
    database: config.mongodbDb,
  });
  return {
    authority: createActionAuthority(accepted),
    acceptedSignerKeys: accepted,
    // Without a configured relying party no passkey assertion holds (Ed25519 keys still do).
    relyingParty: {
      rpId: config.webauthnRpId ?? 'localhost',
      origins: config.webauthnOrigins ?? [],
    },
    claimProblem: (kind, claim, signature, what) =>
      signatureProblem(
        accepted,
        claimMessage(kind, claim, signature?.signed_at ?? ''),
        signature,
        what,
      ),
    signClaim: (kind, claim) => signer.signClaim(kind, claim),
    ledgerSeal,
    ledgerCheckpoints: createCheckpointIndex({
      dir: config.ledgerCheckpointDir,
      database: config.mongodbDb,
      acceptedKeys: ledgerSeal.acceptedKeys,
    }),
    auditSeal: createAuditSeal({
      seed: ledgerSealSeed(config),
      acceptedKeys: config.ledgerSealVerifyKeys,
      checkpointDir: config.ledgerCheckpointDir,
      database: config.mongodbDb,
    }),
    reportSecurityEvent,
  };
}
