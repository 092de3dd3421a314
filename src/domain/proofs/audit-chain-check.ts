import {
  auditLineProblem,
  auditSealMessage,
  type AuditCheckpointLine,
  type AuditCut,
  type AuditRowCheckpoint,
} from '../governance/audit-seal';
import { ledgerDigestHolds, sealProblem } from '../external-actions/ledger-seal';
import type { StoredAuditRow } from '../../store/audit.repo';
import { CHECKPOINT_GRACE_MS } from './ledger-seal-check';
import type { CheckFindings } from './checks';
import type { Violation } from './schemas';

/** What `audit_chain` judges the rows against, none of it from the database. */
export interface AuditSealing {
  acceptedKeys: readonly string[];
  /** The audit checkpoint file's lines, read before the rows. */
  lines: readonly AuditCheckpointLine[];
  /**
   * Its lines read again after the rows: the cuts among them count too, so a prune that
   * deleted rows between the first read and the rows' read is not taken for a deletion.
   */
  linesAfter: readonly AuditCheckpointLine[];
  /** The check's clock (`CHECKPOINT_GRACE_MS`). */
  now: Date;
}

const short = (digest: unknown) => `${String(digest).slice(0, 19)}…`;

function pushTo<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const auditViolation = (recordId: string, problem: string): Violation => ({
  collection: 'audit',
  record_id: recordId,
  problem,
});

type ChainedRow = StoredAuditRow & { chain_id: string; seq: number };

/** The lines whose signature holds (each other one is a violation, and is not used). */
function validLines(sealing: AuditSealing, violations: Violation[]) {
  const rows: AuditRowCheckpoint[] = [];
  const cuts: AuditCut[] = [];
  for (const line of sealing.lines) {
    const problem = auditLineProblem(sealing.acceptedKeys, line);
    if (problem) {
      const id = line.kind === 'cut' ? `cut:${line.cutoff}` : `${line.chain_id}:${line.seq}`;
      violations.push({ collection: 'audit_checkpoints', record_id: id, problem });
    } else if (line.kind === 'cut') cuts.push(line);
    else rows.push(line);
  }
  for (const line of sealing.linesAfter) {
    if (line.kind === 'cut' && !auditLineProblem(sealing.acceptedKeys, line)) cuts.push(line);
  }
  return { rows, cuts };
}

/**
 * `audit_chain` (docs/proofs.md): the admin audit is chained per writer, sealed and
 * checkpointed (`audit-seal.ts`). Over the rows read (`complete`: all of them):
 * - a chained row's digest recomputes, its seal is by an accepted key and verifies, the
 *   first of its chain has no `prev_digest` and every other links to the row before when
 *   that row is there; no two rows share a chain's slot;
 * - a row outside any chain (no `chain_id`) is flagged, whatever its `at` says (a date is
 *   the writer's word): rows written before chaining existed are chained once by the
 *   operator's `seal-records`;
 * - every checkpointed row is there with the checkpoint's id and digest, unless a retention
 *   cut reaches it (its `at` before a cut's cutoff: pruned on purpose); a slot below a
 *   chain's newest that neither a row nor a checkpoint shows is gone too;
 * - each chain's newest row is reached by a checkpoint once it is older than the grace.
 * What is gone is judged only when every row was read.
 */
export function auditChain(
  rows: StoredAuditRow[],
  complete: boolean,
  sealing: AuditSealing,
): CheckFindings {
  const violations: Violation[] = [];
  const lines = validLines(sealing, violations);
  // Each seal verified once: its verdict serves both when sealing began and the row's rules.
  const sealVerdicts = new Map<StoredAuditRow, string | null>();
  for (const row of rows) {
    if (row.seal !== undefined) {
      sealVerdicts.set(row, sealProblem(sealing.acceptedKeys, row as never, auditSealMessage));
    }
  }
  let sealingSince: string | null = null;
  for (const { at } of [...lines.rows, ...rows.filter((row) => sealVerdicts.get(row) === null)]) {
    if (sealingSince === null || at < sealingSince) sealingSince = at;
  }

  const chains = new Map<string, ChainedRow[]>();
  for (const row of rows) {
    if (typeof row.chain_id !== 'string' || typeof row.seq !== 'number') {
      violations.push(
        auditViolation(
          row._id,
          sealingSince !== null && row.at >= sealingSince
            ? `it is not chained, though dated after sealing began (${sealingSince})`
            : 'it is not chained (a row written before chaining existed is chained by `seal-records`)',
        ),
      );
      continue;
    }
    pushTo(chains, row.chain_id, row as ChainedRow);
  }
  const checkpointsOf = new Map<string, AuditRowCheckpoint[]>();
  for (const line of lines.rows) pushTo(checkpointsOf, line.chain_id, line);
  for (const chainId of new Set([...chains.keys(), ...checkpointsOf.keys()])) {
    const chain = (chains.get(chainId) ?? []).sort((a, b) => a.seq - b.seq);
    const checkpoints = checkpointsOf.get(chainId) ?? [];
    violations.push(
      ...rowViolations(chain, (row) =>
        sealVerdicts.has(row) ? sealVerdicts.get(row)! : 'it is unsealed',
      ),
    );
    violations.push(...goneViolations(chainId, chain, checkpoints, lines.cuts, complete));
    const newest = chain[chain.length - 1];
    const reached = checkpoints.reduce((max, c) => Math.max(max, c.seq), 0);
    // One sealed row past the newest line is what a writer stopped between its insert and
    // its line leaves (an api process killed; nothing retries an audit line): the row's own
    // seal vouches for it. Two or more unreached rows mean lines are missing.
    if (
      complete &&
      newest &&
      newest.seq > reached + 1 &&
      sealing.now.getTime() - Date.parse(newest.at) > CHECKPOINT_GRACE_MS
    ) {
      violations.push(
        auditViolation(
          newest._id,
          reached === 0
            ? 'no checkpoint names its chain (the checkpoint file is missing, cut or not shared)'
            : `no checkpoint reaches it: the newest names seq ${reached} of chain ${chainId}`,
        ),
      );
    }
  }
  return { checked: rows.length, violations };
}

/** The rules each row of one chain (in `seq` order) must keep on its own and with the one before. */
function rowViolations(
  chain: readonly ChainedRow[],
  sealVerdict: (row: ChainedRow) => string | null,
): Violation[] {
  const violations: Violation[] = [];
  chain.forEach((row, index) => {
    const previous = chain[index - 1];
    if (previous?.seq === row.seq) {
      violations.push(
        auditViolation(
          row._id,
          `a second row in slot ${row.chain_id}:${row.seq} (also ${previous._id})`,
        ),
      );
    }
    if (typeof row.digest !== 'string' || !ledgerDigestHolds(row as { digest: string })) {
      violations.push(auditViolation(row._id, 'its digest does not recompute'));
    }
    const sealed = sealVerdict(row);
    if (sealed) violations.push(auditViolation(row._id, sealed));
    if (row.seq === 1 && row.prev_digest !== null) {
      violations.push(auditViolation(row._id, 'its chain starts here, but prev_digest is set'));
    } else if (previous && previous.seq === row.seq - 1 && row.prev_digest !== previous.digest) {
      violations.push(auditViolation(row._id, `prev_digest is not the digest of ${previous._id}`));
    }
  });
  return violations;
}

/**
 * Each checkpointed row of one chain against the rows there, and each slot below the
 * chain's newest that nothing shows. A checkpointed row that is gone is pruned when a cut's
 * cutoff is after its `at` (retention deletes rows dated before the cutoff); else deleted.
 */
function goneViolations(
  chainId: string,
  chain: readonly ChainedRow[],
  checkpoints: readonly AuditRowCheckpoint[],
  cuts: readonly AuditCut[],
  complete: boolean,
): Violation[] {
  const violations: Violation[] = [];
  const slots = new Map<number, ChainedRow[]>();
  for (const row of chain) {
    const slot = slots.get(row.seq);
    if (slot) slot.push(row);
    else slots.set(row.seq, [row]);
  }
  const named = new Map<number, AuditRowCheckpoint>();
  for (const checkpoint of checkpoints) {
    if (named.has(checkpoint.seq)) continue;
    named.set(checkpoint.seq, checkpoint);
    // A second row in the slot is named already: judge the one the checkpoint names.
    const slot = slots.get(checkpoint.seq) ?? [];
    const row = slot.find((r) => r._id === checkpoint.audit_id) ?? slot[0];
    if (row && (row._id !== checkpoint.audit_id || row.digest !== checkpoint.head)) {
      violations.push(
        auditViolation(
          row._id,
          `the checkpoint of ${checkpoint.at} names ${checkpoint.audit_id} with digest ${short(checkpoint.head)} in its slot ${chainId}:${checkpoint.seq}, but it has digest ${short(row.digest)}`,
        ),
      );
    } else if (!row && complete && !cuts.some((cut) => checkpoint.at < cut.cutoff)) {
      violations.push(
        auditViolation(
          checkpoint.audit_id,
          `it is gone: the checkpoint of ${checkpoint.at} names it in slot ${chainId}:${checkpoint.seq} with digest ${short(checkpoint.head)}, and no retention cut reaches it`,
        ),
      );
    }
  }
  if (!complete) return violations;
  // Empty slots as runs (a seq the holder set far ahead is one finding, not millions).
  const newest = chain[chain.length - 1]?.seq ?? 0;
  const known = [...new Set([...slots.keys(), ...named.keys()])]
    .filter((seq) => seq < newest)
    .sort((a, b) => a - b);
  let before = 0;
  for (const seq of [...known, newest]) {
    if (seq > before + 1) {
      const run = seq - 1 > before + 1 ? `${before + 1}..${seq - 1}` : `${before + 1}`;
      violations.push(
        auditViolation(
          `${chainId}:${run}`,
          `its slot${seq - 1 > before + 1 ? 's are' : ' is'} empty and no checkpoint names ${seq - 1 > before + 1 ? 'them' : 'it'}: rows are gone`,
        ),
      );
    }
    before = seq;
  }
  return violations;
}
