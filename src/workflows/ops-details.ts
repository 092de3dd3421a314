import { clock, code, currentDetailsMarkdown, mdText } from '../lib/workflow-text';
import type { CheckpointRecord } from '../store/checkpoints.repo';
import type { ProofRunRecord } from '../store/proofs.repo';
import type { ScenarioRunRecord } from '../store/scenario-runs.repo';

/**
 * What the continuous-ops workflows (checkpoints, proof runs, scenario runs) and the
 * notification deliveries tell a person in the Web UI while they run: current details at
 * every transition (`Stage`, `Progress`, `Next`), computed from their own state: no reads.
 */

/** A checkpoint: which scope it copies, how many of its scopes are done, what comes next. */
export function checkpointCurrentDetails(
  record: CheckpointRecord,
  collections: Record<string, readonly string[]>,
): string {
  const done = Object.keys(record.scopes);
  const nextScope = record.scope.find((scope) => !done.includes(scope));
  let next: string;
  if (record.status !== 'running') next = `nothing: it ended ${record.status}`;
  // Nothing recorded yet (the first record follows the world's position).
  else if (record.seq === 0) next = "the world's position (history head, revision)";
  else if (nextScope)
    next = `copy scope ${code(nextScope)} (${(collections[nextScope] ?? []).join(', ') || 'no collections'})`;
  else if (!record.manifest) next = `write ${code('manifest.json')}`;
  else next = 'completion';
  return currentDetailsMarkdown({
    Checkpoint: code(record._id),
    Stage: record.status,
    Next: next,
    Progress: `${done.length} of ${record.scope.length} scopes${done.length ? ` (${done.join(', ')})` : ''}`,
    'World revision': record.world_revision === null ? null : String(record.world_revision),
    Manifest: record.manifest ? code(record.manifest.path) : null,
    Error: record.error ? mdText(record.error) : null,
  });
}

/** A proof run: checks done of asked, which failed, the next check. */
export function proofCurrentDetails(record: ProofRunRecord): string {
  const failed = record.results.filter((r) => r.status !== 'passed');
  const next = record.checks[record.results.length];
  return currentDetailsMarkdown({
    'Proof run': code(record._id),
    Stage: record.status,
    Next:
      record.status !== 'running'
        ? `nothing: it ended ${record.status}`
        : next
          ? `check ${code(next)} (at most ${record.max_records} records)`
          : 'completion',
    Progress: `${record.results.length} of ${record.checks.length} checks`,
    'Not passed': failed.length
      ? failed.map((r) => `${code(r.name)} ${r.status} (${r.violation_count})`).join(', ')
      : null,
    Error: record.error ? mdText(record.error) : null,
  });
}

/** Where a scenario run stands: `driving`, `judging`, then its outcome. */
export type ScenarioStage = 'driving' | 'judging' | 'ended';

const SCENARIO_NEXT: Record<ScenarioStage, string> = {
  driving: 'the drive through the api to end (deployments, actions, answers observed)',
  judging: 'the observations judged against the known outcome, then the report',
  ended: 'nothing',
};

/** A scenario run: its stage, the checks held so far, the report once written. */
export function scenarioCurrentDetails(record: ScenarioRunRecord, stage: ScenarioStage): string {
  const held = record.checks.filter((c) => c.passed).length;
  return currentDetailsMarkdown({
    'Scenario run': `${code(record.scenario)} ${code(record._id)}`,
    Stage: stage === 'ended' ? record.status : `${record.status} (${stage})`,
    Next: stage === 'ended' ? `nothing: it ended ${record.status}` : SCENARIO_NEXT[stage],
    Progress: record.checks.length
      ? `${held} of ${record.checks.length} checks held`
      : stage === 'driving'
        ? 'driving'
        : `${Object.keys(record.observations).length} observations`,
    Report: record.report ? code(record.report.markdown) : null,
    Error: record.error ? mdText(record.error) : null,
  });
}

/** Where a notification delivery stands. */
export type DeliveryStage =
  'waiting' | 'checking' | 'delivering' | 'delivered' | 'skipped' | 'failed';

const DELIVERY_NEXT: Record<DeliveryStage, (due: string) => string> = {
  waiting: (due) => `its due time, ${clock(due)}, then a check that it still matters`,
  checking: () => 'a check that it still matters (a reminder of a decided action does not)',
  delivering: () =>
    'a 2xx from the receiver (each attempt recorded on the notification; retried with backoff 1 s → 10 min for a day)',
  delivered: () =>
    'nothing: delivered (or skipped, had the subscription stopped: the notification says)',
  skipped: () => 'nothing: skipped (no longer due, or the subscription is not active)',
  failed: () => 'nothing: failed (refused, or a day of retries ran out)',
};

/** A delivery's current details: what it delivers to whom, its stage, what it waits for. */
export function deliveryCurrentDetails(what: string, stage: DeliveryStage, due: string): string {
  return currentDetailsMarkdown({
    Delivery: what,
    Stage: stage,
    Next: DELIVERY_NEXT[stage](due),
    Due: clock(due),
  });
}
