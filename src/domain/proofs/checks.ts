import stringify from 'safe-stable-stringify';
import type { ActionLedgerEntry, ActionRecord } from '../../store/external-actions.repo';
import type { ExternalEventRecord } from '../../store/external-events.repo';
import type { RepairLedgerEntry } from '../../store/repairs.repo';
import type { WorldHistoryEvent } from '../../store/world-history.repo';
import type { WorldObject } from '../../store/world-objects.repo';
import type { ActionAuthority } from '../external-actions/authority';
import { digestHolds } from '../../lib/canonical-digest';
import { ledgerDigestHolds } from '../external-actions/ledger-seal';
import { sealViolations, type Sealing } from './ledger-seal-check';
import type {
  ActionDecision,
  ActionState,
  SignedActionProposal,
} from '../../workflows/external-action.contract';
import { LEDGER_GENESIS } from '../repairs/ledger';
import { replayVersions } from '../repairs/diagnosis';
import type { Violation } from './schemas';

/** What one check found over the records it read (docs/proofs.md gives each rule). */
export interface CheckFindings {
  checked: number;
  violations: Violation[];
}

const violation = (collection: string, recordId: string, problem: string): Violation => ({
  collection,
  record_id: recordId,
  problem,
});

/** Each action's ledger entries, in `seq` order. */
export function chainsByAction(
  entries: readonly ActionLedgerEntry[],
): Map<string, ActionLedgerEntry[]> {
  const byAction = new Map<string, ActionLedgerEntry[]>();
  for (const entry of entries) {
    const chain = byAction.get(entry.action_id) ?? [];
    chain.push(entry);
    byAction.set(entry.action_id, chain);
  }
  for (const chain of byAction.values()) chain.sort((a, b) => a.seq - b.seq);
  return byAction;
}

/**
 * `action_ledger_chain`: per action, its entries in `seq` order: each entry's digest
 * recomputes (over all but `digest` and `seal`), the first has no `prev_digest`, every later
 * one carries the digest of the one before it. With `sealing` (the proof run; a dossier
 * checks its own entries only), the seals and the checkpoint file too (`sealViolations`).
 * `complete`: every entry was read (else a chain may start past its first entry).
 */
export function actionLedgerChain(
  entries: ActionLedgerEntry[],
  complete: boolean,
  sealing?: Sealing,
): CheckFindings {
  const byAction = chainsByAction(entries);
  const violations: Violation[] = [];
  for (const chain of byAction.values()) {
    chain.forEach((entry, index) => {
      if (!ledgerDigestHolds(entry)) {
        violations.push(violation('action_ledger', entry._id, 'its digest does not recompute'));
      }
      const previous = chain[index - 1];
      if (previous && entry.prev_digest !== previous.digest) {
        violations.push(
          violation('action_ledger', entry._id, `prev_digest is not the digest of ${previous._id}`),
        );
      }
      if (!previous && entry.prev_digest !== null && complete) {
        violations.push(
          violation('action_ledger', entry._id, 'the chain starts here, but prev_digest is set'),
        );
      }
    });
  }
  if (sealing) violations.push(...sealViolations(byAction, sealing, complete));
  return { checked: entries.length, violations };
}

/**
 * `executions_approved`: each executed action had at least its required approvals, from
 * distinct principals, none of them its proposer, all recorded before execution began.
 */
export function executionsApproved(actions: ActionRecord[]): CheckFindings {
  const violations: Violation[] = [];
  let checked = 0;
  for (const action of actions) {
    if (action.status !== 'executed' && action.execution?.outcome !== 'executed') continue;
    checked += 1;
    const started = action.status_timestamps.executing ?? action.status_timestamps.executed;
    const approvers = action.approvals.map((approval) => approval.principal_id);
    const distinct = new Set(approvers);
    const required = action.bounds.required_approvals;
    const problems = [
      distinct.size < required && `${distinct.size} distinct approvals of ${required} required`,
      distinct.size < approvers.length && 'one principal approved more than once',
      distinct.has(action.proposed_by.principal_id) && 'the proposer approved it',
      started !== undefined &&
        action.approvals.some((approval) => approval.at > started) &&
        'an approval is dated after execution began',
    ].filter((problem): problem is string => typeof problem === 'string');
    for (const problem of problems)
      violations.push(violation('external_actions', action._id, problem));
  }
  return { checked, violations };
}

/**
 * `decisions_signed`: each action whose ledger shows it executing carries, in that ledger,
 * the api's signature over its proposal and signed decisions that authorise what ran: the
 * rule's approvals by distinct principals other than the proposer, each naming the plan the
 * action awaited approval with and signed before the window ended, and a signed execute
 * unless the rule or the proposal executes by itself (`ActionAuthority.executionProblem`,
 * the very check the effect ran). `complete`: every entry was read (else an action whose
 * proposal entry was not read is skipped, not judged).
 */
export function decisionsSigned(
  entries: ActionLedgerEntry[],
  authority: ActionAuthority,
  complete: boolean,
): CheckFindings {
  const byAction = chainsByAction(entries);
  const violations: Violation[] = [];
  let checked = 0;
  for (const [actionId, chain] of byAction) {
    const executing = chain.find((entry) => entry.status === 'executing');
    if (!executing) continue;
    const proposed = chain.find((entry) => entry.event === 'proposed');
    if (!proposed && !complete) continue;
    checked += 1;
    const proposal = proposed?.detail['proposal'] as SignedActionProposal | undefined;
    const planDigest = chain.find((entry) => entry.event === 'awaiting_approval')?.detail[
      'plan_digest'
    ] as string | undefined;
    const decisions = chain
      .map((entry) => entry.detail['decision'] as ActionDecision | undefined)
      .filter((decision): decision is ActionDecision => decision !== undefined);
    const state = {
      action_id: actionId,
      status: 'executing',
      proposal,
      decisions,
    } as unknown as ActionState;
    const problem = !proposal
      ? 'its ledger has no signed proposal'
      : !planDigest
        ? 'its ledger names no plan it awaited approval with'
        : authority.executionProblem(state, planDigest);
    if (problem) violations.push(violation('action_ledger', executing._id, problem));
  }
  return { checked, violations };
}

/**
 * `world_history_replay`: replaying each object's history (`object.created`, then each
 * versioned update or repair) gives its current version and attributes. With `complete`
 * false (the history read was cut), an object whose versions 1..n were not all read is
 * skipped, not judged.
 */
export function worldHistoryReplay(
  objects: WorldObject[],
  historyOf: (objectId: string) => WorldHistoryEvent[],
  complete: boolean,
): CheckFindings {
  const violations: Violation[] = [];
  let checked = 0;
  for (const object of objects) {
    const versions = replayVersions(historyOf(object._id));
    const whole = Array.from({ length: object.version }, (_, i) => i + 1).every((v) =>
      versions.has(v),
    );
    if (!complete && !whole) continue;
    checked += 1;
    const replayed = versions.get(object.version);
    const newest = Math.max(0, ...versions.keys());
    const problem = !replayed
      ? `no history event gives version ${object.version}`
      : newest !== object.version
        ? `history reaches version ${newest}, the object ${object.version}`
        : stringify(replayed) !== stringify(object.attributes)
          ? `attributes differ from the replay of version ${object.version}`
          : null;
    if (problem) violations.push(violation('world_objects', object._id, problem));
  }
  return { checked, violations };
}

/**
 * `event_dedup`: no two stored events share a dedup key (`source_family`,
 * `source_event_id`) or an `event_id`, and each is stored under its key (`eventKey`).
 */
export function eventDedup(
  events: ExternalEventRecord[],
  keyOf: (sourceFamily: string, sourceEventId: string) => string,
): CheckFindings {
  const violations: Violation[] = [];
  const byKey = new Map<string, string>();
  const byEventId = new Map<string, string>();
  for (const event of events) {
    const key = keyOf(event.source_family, event.source_event_id);
    if (key !== event._id) {
      violations.push(
        violation('external_events', event.event_id, 'not stored under its dedup key'),
      );
    }
    const sameKey = byKey.get(key);
    if (sameKey) {
      violations.push(
        violation('external_events', event.event_id, `same source event as ${sameKey}`),
      );
    }
    const sameId = byEventId.get(event.event_id);
    if (sameId) {
      violations.push(
        violation('external_events', event.event_id, `event_id also stored as ${sameId}`),
      );
    }
    byKey.set(key, event.event_id);
    byEventId.set(event.event_id, event._id);
  }
  return { checked: events.length, violations };
}

/** Our API keys (`grk_<key id>_<secret>`): a key id alone never matches. */
const KEY_SECRET = /grk_[A-Za-z0-9]+_[A-Za-z0-9]{16,}/;

/** `no_secrets`: no row of the audit trail, the ledgers or the request rows holds a key secret. */
export function noSecrets(rows: { collection: string; row: { _id: unknown } }[]): CheckFindings {
  const violations: Violation[] = [];
  for (const { collection, row } of rows) {
    if (KEY_SECRET.test(JSON.stringify(row))) {
      violations.push(violation(collection, String(row._id), 'holds an API key secret'));
    }
  }
  return { checked: rows.length, violations };
}

/** `artifacts_integrity`: each artifact's bytes exist and hash to its recorded sha256 and size. */
export function artifactsIntegrity(
  artifacts: {
    _id: string;
    path: string;
    sha256: string;
    size: number;
    stored: { sha256: string; size: number } | null;
  }[],
): CheckFindings {
  const violations: Violation[] = [];
  for (const artifact of artifacts) {
    const label = `${artifact._id} (${artifact.path})`;
    if (!artifact.stored) violations.push(violation('artifacts', label, 'its bytes are missing'));
    else if (artifact.stored.sha256 !== artifact.sha256) {
      violations.push(violation('artifacts', label, `its bytes hash to ${artifact.stored.sha256}`));
    } else if (artifact.stored.size !== artifact.size) {
      violations.push(
        violation(
          'artifacts',
          label,
          `it holds ${artifact.stored.size} bytes, not ${artifact.size}`,
        ),
      );
    }
  }
  return { checked: artifacts.length, violations };
}

/** `repair_chain`: the repair ledger's slots 1, 2, … each recompute and link to the one before. */
export function repairChain(entries: RepairLedgerEntry[]): CheckFindings {
  const violations: Violation[] = [];
  const sorted = [...entries].sort((a, b) => a._id - b._id);
  sorted.forEach((entry, index) => {
    if (!digestHolds(entry)) {
      violations.push(
        violation('repair_ledger', String(entry._id), 'its digest does not recompute'),
      );
    }
    const previous = sorted[index - 1];
    const expected =
      entry._id === 1 ? LEDGER_GENESIS : previous?._id === entry._id - 1 ? previous.digest : null;
    if (expected === null) {
      violations.push(
        violation('repair_ledger', String(entry._id), `slot ${entry._id - 1} is missing`),
      );
    } else if (entry.prev_digest !== expected) {
      violations.push(
        violation(
          'repair_ledger',
          String(entry._id),
          'prev_digest does not link to the slot before',
        ),
      );
    }
  });
  return { checked: entries.length, violations };
}
