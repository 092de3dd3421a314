import type { ActionAuthority } from '../external-actions/authority';
import type { LedgerSealVerifier } from '../external-actions/ledger-seal';
import type { AuditSealVerifier } from '../governance/audit-seal';
import type { RelyingParty } from '../approver-keys/approver-assertion';
import { approverSignaturesCheck } from './approver-signatures-check';
import { authorityRecordsCheck } from './authority-records-check';
import type { Repos } from '../../store';
import type { ActionLedgerEntry, ActionRecord } from '../../store/external-actions.repo';
import type { ExternalEventRecord } from '../../store/external-events.repo';
import type { StoredCheckResult } from '../../store/proofs.repo';
import type { RepairLedgerEntry } from '../../store/repairs.repo';
import type { WorldHistoryEvent } from '../../store/world-history.repo';
import type { WorldObject } from '../../store/world-objects.repo';
import { sha256Hex } from '../../store/artifacts.repo';
import { eventKey } from '../external-events/external-events.service';
import { actionsMatchLedger } from './ledger-seal-check';
import { auditChain } from './audit-chain-check';
import type { StoredAuditRow } from '../../store/audit.repo';
import { actionsMatchWorkflow } from './workflow-check';
import {
  actionLedgerChain,
  artifactsIntegrity,
  chainsByAction,
  decisionsSigned,
  eventDedup,
  executionsApproved,
  noSecrets,
  repairChain,
  worldHistoryReplay,
  type CheckFindings,
} from './checks';
import { LISTED_VIOLATIONS, type ProofCheck } from './schemas';

type Deps = {
  repos: Pick<
    Repos,
    'collectionReader' | 'artifacts' | 'approverKeys' | 'externalActions' | 'sealed'
  >;
  /** Judges signatures with the verifier's own accepted keys (`decisions_signed`). */
  authority: ActionAuthority;
  /** Where approvers' passkeys are valid (`approver_signatures`). */
  relyingParty: RelyingParty;
  /** The ledger seal keys and checkpoint file (`action_ledger_chain`). */
  ledgerSeal: LedgerSealVerifier;
  /** The audit's accepted keys and checkpoint file (`audit_chain`). */
  auditSeal: AuditSealVerifier;
  /** Ids of the actions whose workflow runs now, as Temporal says (`actions_match_workflow`). */
  runningActions: () => Promise<Set<string>>;
  /** The checks' clock (the graces); now unless a test moves it. */
  now?: () => Date;
};

/** History events read per object checked, at most (the replay needs all of an object's). */
const HISTORY_PER_OBJECT = 20;

/** Reads what one check needs (each read bounded by `max`) and applies its rule. */
async function findingsOf(
  deps: Deps,
  check: ProofCheck,
  max: number,
): Promise<CheckFindings & { bound_reached: boolean }> {
  const reader = deps.repos.collectionReader;
  switch (check) {
    case 'action_ledger_chain': {
      // The checkpoints first: a batch recorded between the two reads is then in the ledger
      // read, never a checkpoint without its entries.
      const checkpoints = await deps.ledgerSeal.checkpoints();
      const { rows, more } = await reader.firstOf<ActionLedgerEntry>('action_ledger', max);
      const sealing = { acceptedKeys: deps.ledgerSeal.acceptedKeys, checkpoints, now: new Date() };
      return { ...actionLedgerChain(rows, !more, sealing), bound_reached: more };
    }
    case 'actions_match_ledger': {
      // The records first: one recorded between the reads leaves its ledger ahead of the
      // record read (within the grace), never the record ahead of the ledger read.
      const records = await reader.firstOf<ActionRecord>('external_actions', max);
      const ledger = await reader.firstOf<ActionLedgerEntry>('action_ledger', max);
      const findings = actionsMatchLedger(
        records.rows,
        chainsByAction(ledger.rows),
        !ledger.more,
        new Date(),
      );
      return { ...findings, bound_reached: records.more || ledger.more };
    }
    case 'actions_match_workflow': {
      // Temporal first: an action recorded final between the two reads has a record newer
      // than the grace, never a running workflow the record read missed.
      const running = await deps.runningActions();
      const { rows, more } = await reader.firstOf<ActionRecord>('external_actions', max);
      const now = deps.now?.() ?? new Date();
      return { ...actionsMatchWorkflow(rows, running, now), bound_reached: more };
    }
    case 'decisions_signed': {
      const { rows, more } = await reader.firstOf<ActionLedgerEntry>('action_ledger', max);
      return { ...decisionsSigned(rows, deps.authority, !more), bound_reached: more };
    }
    case 'approver_signatures': {
      const { rows, more } = await reader.firstOf<ActionLedgerEntry>('action_ledger', max);
      const findings = await approverSignaturesCheck(
        rows,
        deps.repos.approverKeys,
        deps.relyingParty,
        !more,
      );
      return { ...findings, bound_reached: more };
    }
    case 'executions_approved': {
      const { rows, more } = await reader.firstOf<ActionRecord>('external_actions', max);
      return { ...executionsApproved(rows), bound_reached: more };
    }
    case 'world_history_replay': {
      const objects = await reader.firstOf<WorldObject>('world_objects', max);
      const history = await reader.firstOf<WorldHistoryEvent>(
        'world_history',
        max * HISTORY_PER_OBJECT,
      );
      const byObject = new Map<string, WorldHistoryEvent[]>();
      for (const event of history.rows) {
        if (!event.object_id) continue;
        const list = byObject.get(event.object_id) ?? [];
        list.push(event);
        byObject.set(event.object_id, list);
      }
      const findings = worldHistoryReplay(
        objects.rows,
        (id) => byObject.get(id) ?? [],
        !history.more,
      );
      return { ...findings, bound_reached: objects.more || history.more };
    }
    case 'event_dedup': {
      const { rows, more } = await reader.firstOf<ExternalEventRecord>('external_events', max);
      return { ...eventDedup(rows, eventKey), bound_reached: more };
    }
    case 'no_secrets': {
      const reads = await Promise.all(
        ['audit', 'action_ledger', 'request_ledger'].map(async (collection) => ({
          collection,
          ...(await reader.firstOf<{ _id: unknown }>(collection, max)),
        })),
      );
      const rows = reads.flatMap(({ collection, rows }) =>
        rows.map((row) => ({ collection, row })),
      );
      return { ...noSecrets(rows), bound_reached: reads.some((read) => read.more) };
    }
    case 'artifacts_integrity': {
      const { rows, more } = await reader.firstOf<{
        _id: string;
        path: string;
        sha256: string;
        size: number;
      }>('artifacts', max);
      const checked = await Promise.all(
        rows.map(async (artifact) => {
          const bytes = await deps.repos.artifacts.content(artifact as never);
          const stored = bytes && { sha256: sha256Hex(bytes), size: bytes.byteLength };
          return { ...artifact, stored };
        }),
      );
      return { ...artifactsIntegrity(checked), bound_reached: more };
    }
    case 'authority_records':
      return authorityRecordsCheck(
        { repos: deps.repos, acceptedLedgerKeys: deps.ledgerSeal.acceptedKeys },
        max,
      );
    case 'audit_chain': {
      // The lines first, as for the ledger: a row appended in between is then in the rows'
      // read, never a checkpoint without its row. Read again after, for the cuts: a prune in
      // between deletes rows only after its cut line is written.
      const lines = await deps.auditSeal.lines();
      const { rows, more } = await reader.firstOf<StoredAuditRow>('audit', max);
      const sealing = {
        acceptedKeys: deps.auditSeal.acceptedKeys,
        lines,
        linesAfter: await deps.auditSeal.lines(),
        now: deps.now?.() ?? new Date(),
      };
      return { ...auditChain(rows, !more, sealing), bound_reached: more };
    }
    case 'repair_chain': {
      const { rows, more } = await reader.firstOf<RepairLedgerEntry>('repair_ledger', max);
      return { ...repairChain(rows), bound_reached: more };
    }
  }
}

/**
 * One check of a proof run: `failed` when it found violations, `inconclusive` when it found
 * none but `max_records` stopped a read, else `passed` (docs/proofs.md).
 */
export async function runProofCheck(
  deps: Deps,
  input: { run_id: string; check: ProofCheck; max_records: number },
): Promise<StoredCheckResult> {
  const findings = await findingsOf(deps, input.check, input.max_records);
  const failed = findings.violations.length > 0;
  return {
    name: input.check,
    status: failed ? 'failed' : findings.bound_reached ? 'inconclusive' : 'passed',
    checked: findings.checked,
    violations: findings.violations.slice(0, LISTED_VIOLATIONS),
    violation_count: findings.violations.length,
    bound_reached: findings.bound_reached,
    run_id: input.run_id,
    finished_at: new Date().toISOString(),
  };
}
