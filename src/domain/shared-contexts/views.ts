import type { StoredReconciliation } from '../../store/external-events.repo';
import { inputsOf, type WitnessHeader, type WitnessInput } from '../witnesses/inputs';
import { inputsOfContext, timesOf, type ContextRecords } from './records';

/** Most items a context view lists (its counts cover all). */
export const LISTED = 100;
/** Most referring records listed per object in `aboutness`. */
const REFERRERS = 20;

/** The witness header of a context view over `records` (plus any other records it read). */
export function contextHeader(
  witness: string,
  records: ContextRecords,
  now: Date,
  extra: WitnessInput[] = [],
): WitnessHeader & { context_id: string } {
  const times = timesOf(records).sort();
  return {
    witness,
    context_id: records.context_id,
    computed_at: now.toISOString(),
    window: { from: times[0] ?? now.toISOString(), to: now.toISOString() },
    inputs: inputsOf([...inputsOfContext(records), ...extra], {}, records.bounded),
  };
}

/** First and last activity, counts per kind, and who took part. */
export function summaryOf(records: ContextRecords) {
  const times = timesOf(records).sort();
  const participants = new Set<string>();
  for (const session of records.sessions) participants.add(session.created_by.principal_id);
  for (const action of records.actions) {
    participants.add(action.proposed_by.principal_id);
    for (const decision of action.decisions) participants.add(decision.principal_id);
  }
  for (const event of records.events) participants.add(`source:${event.source_family}`);
  participants.delete('auto');
  return {
    first_activity_at: times[0],
    last_activity_at: times[times.length - 1],
    counts: {
      sessions: records.sessions.length,
      actions: records.actions.length,
      events: records.events.length,
      tasks: records.tasks.length,
    },
    participants: [...participants].sort(),
  };
}

/** The world objects the context's records refer to, most referred first. */
export function aboutnessOf(records: ContextRecords) {
  const referrers = new Map<string, { kind: string; id: string }[]>();
  const refer = (objectId: string | null | undefined, kind: string, id: string) => {
    if (!objectId) return;
    const list = referrers.get(objectId) ?? [];
    list.push({ kind, id });
    referrers.set(objectId, list);
  };
  for (const action of records.actions) refer(action.target.world_object_ref, 'action', action._id);
  for (const event of records.events) refer(event.world_object_ref, 'event', event.event_id);
  for (const task of records.tasks)
    for (const ref of task.object_refs) refer(ref, 'task', task._id);
  const total = [...referrers.values()].reduce((sum, list) => sum + list.length, 0);
  const objects = [...referrers]
    .map(([object_id, list]) => ({
      object_id,
      references: list.length,
      weight: Math.round((list.length / total) * 1000) / 1000,
      referrers: list.slice(0, REFERRERS),
    }))
    .sort((a, b) => b.references - a.references || a.object_id.localeCompare(b.object_id));
  return { objects: objects.slice(0, LISTED), referenced_objects: objects.length };
}

/** What the context has committed to: approved or executing actions, open or started tasks. */
export function commitmentsOf(records: ContextRecords) {
  const actions = records.actions
    .filter((a) => a.status === 'approved' || a.status === 'executing')
    .map((a) => ({
      action_id: a._id,
      action_kind: a.action_kind,
      status: a.status,
      target: a.target,
      approvals: a.approvals.length,
      since: a.status_timestamps[a.status] ?? a.updated_at,
    }));
  const tasks = records.tasks
    .filter((t) => t.state === 'open' || t.state === 'in_progress')
    .map((t) => ({ task_id: t._id, title: t.title, state: t.state, object_refs: t.object_refs }));
  return {
    actions: actions.slice(0, LISTED),
    tasks: tasks.slice(0, LISTED),
    counts: { actions: actions.length, tasks: tasks.length },
  };
}

/**
 * Where the context disagrees: rejected actions, split decisions (approved and rejected by
 * different principals), events reconciled as conflicts or stale, blocked tasks.
 */
export function disagreementOf(
  records: ContextRecords,
  outcomes: Map<string, StoredReconciliation['outcome']>,
) {
  const rejections = records.actions
    .filter((a) => a.status === 'rejected')
    .map((a) => ({
      action_id: a._id,
      by: a.decisions.filter((d) => d.decision === 'reject').map((d) => d.principal_id),
      reason: a.decisions.find((d) => d.decision === 'reject')?.reason ?? null,
    }));
  const split = records.actions
    .filter(
      (a) =>
        a.decisions.some((d) => d.decision === 'approve') &&
        a.decisions.some((d) => d.decision === 'reject'),
    )
    .map((a) => ({
      action_id: a._id,
      approved_by: a.decisions.filter((d) => d.decision === 'approve').map((d) => d.principal_id),
      rejected_by: a.decisions.filter((d) => d.decision === 'reject').map((d) => d.principal_id),
    }));
  const contested = (outcome: string) =>
    records.events
      .filter((e) => outcomes.get(e.event_id) === outcome)
      .map((e) => ({ event_id: e.event_id, world_object_ref: e.world_object_ref }));
  const conflicts = contested('conflict');
  const stale = contested('stale');
  const blocked = records.tasks
    .filter((t) => t.state === 'blocked')
    .map((t) => ({ task_id: t._id, title: t.title }));
  return {
    rejections: rejections.slice(0, LISTED),
    split_decisions: split.slice(0, LISTED),
    conflicts: conflicts.slice(0, LISTED),
    stale_events: stale.slice(0, LISTED),
    blocked_tasks: blocked.slice(0, LISTED),
    counts: {
      rejections: rejections.length,
      split_decisions: split.length,
      conflicts: conflicts.length,
      stale_events: stale.length,
      blocked_tasks: blocked.length,
    },
  };
}

/** The context's events and how each reconciled. */
export function reconciliationsOf(
  records: ContextRecords,
  outcomes: Map<string, StoredReconciliation['outcome']>,
) {
  const byOutcome: Record<string, number> = {};
  const events = records.events.map((e) => {
    const outcome = outcomes.get(e.event_id) ?? 'pending';
    byOutcome[outcome] = (byOutcome[outcome] ?? 0) + 1;
    return {
      event_id: e.event_id,
      source_family: e.source_family,
      event_type: e.event_type,
      world_object_ref: e.world_object_ref,
      occurred_at: e.occurred_at,
      outcome,
    };
  });
  return { events: events.slice(0, LISTED), counts: byOutcome };
}
