import type { RepairStatus } from '../domain/repairs/schemas';
import type { Diagnosis } from '../domain/repairs/diagnosis';
import type { RepairFinding, RepairRecord, RepairStep } from '../store/repairs.repo';
import type { ActionState } from './external-action.contract';

/**
 * A repair's stages as pure transitions (docs/repair.md): each takes the record and what a
 * step found and answers the next record and the status the repair goes to. Times come in
 * as arguments; `repair.workflow.ts` runs the steps, records each status and ends the run.
 */

/** The record after a step, and where the repair goes next. */
export interface RepairStage {
  record: RepairRecord;
  next: RepairStatus;
}

/** What the child action's final status makes of the repair. */
const OUTCOME_OF_CHILD: Partial<Record<ActionState['status'], RepairStatus>> = {
  rejected: 'rejected',
  expired: 'rejected',
  dry_run_failed: 'failed',
  failed: 'failed',
};

const withStep = (
  record: RepairRecord,
  step: RepairStep['step'],
  outcome: RepairStep['outcome'],
  detail: string,
  at: string,
): RepairRecord => ({ ...record, steps: [...record.steps, { step, outcome, at, detail }] });

/**
 * Enters `status` (again, when it ends in it): one more projection. `statusChanged` says
 * whether the status is new, for the search attribute and its timestamp.
 */
export function entered(
  record: RepairRecord,
  status: RepairStatus,
  at: string,
): { record: RepairRecord; statusChanged: boolean } {
  const statusChanged = status !== record.status;
  const status_timestamps = statusChanged
    ? { ...record.status_timestamps, [status]: at }
    : record.status_timestamps;
  return {
    record: { ...record, status_timestamps, status, seq: record.seq + 1, updated_at: at },
    statusChanged,
  };
}

/** The repair ends in `status`: completed now, before it goes into the repair ledger. */
export const ending = (record: RepairRecord, status: RepairStatus, at: string): RepairRecord => ({
  ...record,
  status,
  completed_at: at,
  status_timestamps: { ...record.status_timestamps, [status]: at },
});

/** A step that could not go on: the repair fails, saying why. */
export const stepFailed = (
  record: RepairRecord,
  step: RepairStep['step'],
  error: string,
  at: string,
): RepairStage => ({
  record: withStep({ ...record, error }, step, 'failed', error, at),
  next: 'failed',
});

/** The diagnosis: nothing to change ends the repair; a plan goes on to `planned`. */
export function diagnosed(record: RepairRecord, diagnosis: Diagnosis, at: string): RepairStage {
  const { findings, plan } = diagnosis;
  const failing = findings.filter((finding) => !finding.ok).length;
  const checked = withStep(
    { ...record, findings },
    'diagnose',
    'done',
    `${findings.length} check(s), ${failing} not holding`,
    at,
  );
  if (!plan) {
    return {
      record: withStep(checked, 'plan', 'skipped', 'nothing to change', at),
      next: 'no_action_needed',
    };
  }
  const changes =
    Object.keys(plan.diff.attributes).length + Object.keys(plan.diff.external_state).length;
  const detail = `${changes} field change(s) from ${plan.source}, ${plan.digest}`;
  return { record: withStep({ ...checked, plan }, 'plan', 'done', detail, at), next: 'planned' };
}

/**
 * The child action ended: executed, the repair verifies what it wrote; rejected or expired,
 * the repair is rejected; any other end fails it.
 */
export function childEnded(record: RepairRecord, final: ActionState, at: string): RepairStage {
  const outcome = OUTCOME_OF_CHILD[final.status];
  if (outcome || final.status !== 'executed') {
    const why = final.execution?.reason ?? final.dry_run?.policy.reasons.join('; ') ?? '';
    const error = outcome === 'rejected' ? null : `child action ${final.status}: ${why}`;
    const detail = `child action ${final.action_id} ${final.status}${why ? `: ${why}` : ''}`;
    return {
      record: withStep({ ...record, error }, 'apply', 'skipped', detail, at),
      next: outcome ?? 'failed',
    };
  }
  const applied = final.execution?.result ?? {};
  const result = {
    version:
      typeof applied['version'] === 'number' ? applied['version'] : record.plan!.base_version,
    external_revision:
      typeof applied['external_revision'] === 'number' ? applied['external_revision'] : null,
  };
  const detail = `child action ${final.action_id} executed`;
  return {
    record: withStep({ ...record, result }, 'apply', 'done', detail, at),
    next: 'verifying',
  };
}

/**
 * What the verification found: repaired when every check holds. Conditions report disputes
 * between sources; a repair does not settle those, so they never fail it.
 */
export function verified(record: RepairRecord, checks: RepairFinding[], at: string): RepairStage {
  const findings = [
    ...record.findings,
    ...checks.map((c) => ({ ...c, check: `verify.${c.check}` })),
  ];
  const broken = checks.filter((c) => !c.ok && c.check !== 'external_conditions');
  if (broken.length > 0) {
    return stepFailed(
      { ...record, findings },
      'verify',
      broken.map((c) => c.detail).join('; '),
      at,
    );
  }
  const detail = `${checks.length} check(s) hold`;
  return {
    record: withStep({ ...record, findings }, 'verify', 'done', detail, at),
    next: 'repaired',
  };
}

/** The current details the Web UI shows of a repair (Markdown). */
export function repairCurrentDetails(record: RepairRecord, objectName?: string): string {
  return [
    `**Stage:** ${record.status}`,
    `**Object:** ${objectName ?? ''} \`${record.object_id}\``,
    `**Strategy:** ${record.strategy}`,
    ...(record.child_action_id ? [`**Child action:** \`${record.child_action_id}\``] : []),
    ...(record.error ? [`**Error:** ${record.error}`] : []),
  ]
    .map((line) => `- ${line}`)
    .join('\n');
}
