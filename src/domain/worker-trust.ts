import type { ActionAuthority } from './external-actions/authority';
import type { RelyingParty } from './approver-keys/approver-assertion';
import type { LedgerSeal } from './external-actions/ledger-seal';
import type { CheckpointIndex } from './external-actions/checkpoint-index';
import type { AuditSealVerifier } from './governance/audit-seal';
import type { ClaimKind, ClaimSignature } from '../signing/signed-claims';

/**
 * Something refused because the api did not sign it, or because the action's ledger
 * contradicts its signed checkpoints (`security.checkpoint_mismatch`: cut or rewritten).
 */
export interface SecurityEvent {
  kind:
    | 'security.unsigned_proposal'
    | 'security.unsigned_record'
    | 'security.unsigned_effect'
    | 'security.unsigned_repair'
    | 'security.record_integrity'
    | 'security.checkpoint_mismatch';
  message: string;
  /** The same happening reported twice (a retried activity) is stored once. */
  dedup_key: string;
  detail: Record<string, unknown>;
}

/**
 * What the worker's activities decide trust with, all from the worker's own configuration
 * (`src/worker/trust.ts` builds it): never from a workflow's input or history.
 */
export interface WorkerTrust {
  /** Judges proposals and decisions against the accepted keys. */
  authority: ActionAuthority;
  /** Public keys the worker accepts signatures from (`DECISION_VERIFY_KEYS`). */
  acceptedSignerKeys: readonly string[];
  /** Where approvers' passkeys are valid (`WEBAUTHN_RP_ID`, `WEBAUTHN_ORIGINS`). */
  relyingParty: RelyingParty;
  /** Why a signed claim does not hold against the accepted keys, or null. */
  claimProblem(
    kind: ClaimKind,
    claim: object,
    signature: ClaimSignature | undefined,
    what: string,
  ): string | null;
  /**
   * Signs a proposal the worker derives itself, after checking what vouches for it (a
   * repair's child action, vouched for by the repair request the api signed).
   */
  signClaim(kind: ClaimKind, claim: object): ClaimSignature;
  /**
   * Seals the ledger entries the worker records and checkpoints each batch
   * (`LEDGER_SEAL_KEY`); the proof checks verify seals and checkpoints with its accepted keys.
   */
  ledgerSeal: LedgerSeal;
  /**
   * The ledger checkpoints written on this host, indexed in memory: records and effects
   * check the action's ledger against them first (`ledger-checkpoint-check.ts`).
   */
  ledgerCheckpoints: CheckpointIndex;
  /** Verifies the admin audit's seals and checkpoints (`audit_chain`), with the same keys. */
  auditSeal: AuditSealVerifier;
  /** Reports what was refused as forged: a service event, a metric and a `warn` line. */
  reportSecurityEvent(event: SecurityEvent): Promise<void>;
}
