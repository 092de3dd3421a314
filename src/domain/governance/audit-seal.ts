import type { AuditSealer } from '../../store/audit-chain';
import { appendJsonLine, readJsonLines } from '../external-actions/ledger-checkpoints';
import { ledgerSigner, signatureProblem } from '../external-actions/ledger-seal';

/**
 * Seals and checkpoints of the admin audit (docs/governance.md, "What the audit protects
 * against whom"), the action ledger's recipe with labels of its own, so a signature made for
 * one can never pass for the other.
 *
 * Each audit row is chained in its writer's chain (`src/store/audit-chain.ts`) and sealed
 * with the ledger seal key (`LEDGER_SEAL_KEY`): Ed25519 over
 * `["governed-runtime/audit-seal/v1", <row id>, <digest>]`. Each appended row then appends a
 * signed line to `<LEDGER_CHECKPOINT_DIR>/<database>.audit.jsonl`, outside the database:
 * - `kind: "row"`: `db`, `chain_id`, `seq`, `audit_id`, `head` (the row's digest), `at`
 *   (the row's own time, which retention compares), signed over
 *   `["governed-runtime/audit-checkpoint/v1", db, chain_id, seq, audit_id, head, at]`;
 * - `kind: "cut"`: written by a retention prune before it deletes: `db`, `cutoff` (rows dated
 *   before it may be gone), `at` (when), signed over
 *   `["governed-runtime/audit-cut/v1", db, cutoff, at]`.
 * The proof check `audit_chain` tells a pruned row (named by a checkpoint, dated before a
 * cut's cutoff) from a deleted one (named, and no cut reaches it).
 */

export const AUDIT_SEAL_VERSION = 'governed-runtime/audit-seal/v1';
export const AUDIT_CHECKPOINT_VERSION = 'governed-runtime/audit-checkpoint/v1';
export const AUDIT_CUT_VERSION = 'governed-runtime/audit-cut/v1';

/** One appended row, as its checkpoint line names it. */
export interface AuditRowCheckpoint {
  kind: 'row';
  db: string;
  chain_id: string;
  seq: number;
  audit_id: string;
  /** The row's digest as written. */
  head: string;
  /** The row's `at`. */
  at: string;
  key_id: string;
  signature: string;
}

/** A retention prune: rows dated before `cutoff` may be gone from here on. */
export interface AuditCut {
  kind: 'cut';
  db: string;
  cutoff: string;
  /** When the prune wrote it (the pruning process's clock). */
  at: string;
  key_id: string;
  signature: string;
}

export type AuditCheckpointLine = AuditRowCheckpoint | AuditCut;

type Unsigned<T> = Omit<T, 'key_id' | 'signature'>;

/** The sealed bytes of an audit row: `["governed-runtime/audit-seal/v1", <row id>, <digest>]`. */
export const auditSealMessage = (rowId: string, digest: string): Buffer =>
  Buffer.from(JSON.stringify([AUDIT_SEAL_VERSION, rowId, digest]));

/** The signed bytes of a checkpoint line: its fields in a fixed order, as a JSON array. */
export const auditLineMessage = (line: Unsigned<AuditRowCheckpoint> | Unsigned<AuditCut>): Buffer =>
  Buffer.from(
    JSON.stringify(
      line.kind === 'cut'
        ? [AUDIT_CUT_VERSION, line.db, line.cutoff, line.at]
        : [
            AUDIT_CHECKPOINT_VERSION,
            line.db,
            line.chain_id,
            line.seq,
            line.audit_id,
            line.head,
            line.at,
          ],
    ),
  );

export type { AuditSealer } from '../../store/audit-chain';

/** What `audit_chain` verifies with: the accepted keys and the lines written. */
export interface AuditSealVerifier {
  acceptedKeys: readonly string[];
  /** This database's checkpoint lines, in file order (one that does not parse is skipped). */
  lines(): Promise<AuditCheckpointLine[]>;
}

export type AuditSeal = AuditSealer & AuditSealVerifier;

const fileOf = (database: string) => `${database}.audit.jsonl`;

/**
 * The audit seal of one process, over the ledger seal key's seed (`ledgerSealSeed`): signs
 * with it, accepts `acceptedKeys` (default its own) and writes and reads the audit
 * checkpoints of `database` in `checkpointDir`, beside the ledger's.
 */
export function createAuditSeal(options: {
  seed: Buffer;
  acceptedKeys?: readonly string[];
  checkpointDir: string;
  database: string;
}): AuditSeal {
  const { keyId, signHex } = ledgerSigner(options.seed);
  const { checkpointDir, database } = options;
  const append = (unsigned: Unsigned<AuditRowCheckpoint> | Unsigned<AuditCut>) =>
    appendJsonLine(checkpointDir, fileOf(database), {
      ...unsigned,
      key_id: keyId,
      signature: signHex(auditLineMessage(unsigned)),
    });
  return {
    keyId,
    acceptedKeys: options.acceptedKeys?.length ? [...options.acceptedKeys] : [keyId],
    seal: (rowId, digest) => ({
      key_id: keyId,
      signature: signHex(auditSealMessage(rowId, digest)),
    }),
    checkpoint: (row) => append({ kind: 'row', db: database, ...row }),
    cut: (cutoff) => append({ kind: 'cut', db: database, cutoff, at: new Date().toISOString() }),
    async lines() {
      const lines = (await readJsonLines(checkpointDir, fileOf(database))) as AuditCheckpointLine[];
      return lines.filter(
        (line) => line?.db === database && (line.kind === 'row' || line.kind === 'cut'),
      );
    },
  };
}

/** Why a checkpoint line's signature does not hold, or null. */
export const auditLineProblem = (
  acceptedKeys: readonly string[],
  line: AuditCheckpointLine,
): string | null =>
  signatureProblem(acceptedKeys, line.key_id, line.signature, auditLineMessage(line), 'the line');
