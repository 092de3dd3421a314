import { ApplicationFailure } from '@temporalio/activity';
import { settledConditions } from '../domain/external-events/conditions';
import { OBJECT_REPAIRED } from '../domain/repairs/diagnosis';
import type { Repos } from '../store';
import type { RepairPlan } from '../store/repairs.repo';
import type { WorldHistoryEvent } from '../store/world-history.repo';
import { revisionRecord, type ExternalState } from '../store/world-external-state.repo';
import { EXECUTION_FAILURES, type ActionState } from '../workflows/external-action.contract';

type RestoreRepos = Pick<Repos, 'worldObjects' | 'worldHistory' | 'worldExternalState'>;

const drift = (message: string) =>
  ApplicationFailure.nonRetryable(message, EXECUTION_FAILURES.planDrift);

/**
 * Applies a repair's plan once (the effect of a `world.restore_object` action): the whole
 * attribute set as the next version, the external state as the next revision of its chain,
 * and one `object.repaired` history event. History is only appended to. A retry finds its
 * own version claim and revision and finishes; anyone else's write since the plan is drift.
 */
export async function restoreObject(
  repos: RestoreRepos,
  state: ActionState,
  now: string,
): Promise<Record<string, unknown>> {
  const plan = state.parameters['repair_plan'] as RepairPlan;
  const objectId = plan.object_id;
  const version = plan.attributes ? plan.base_version + 1 : null;
  if (plan.attributes) {
    const written = await repos.worldObjects.patchAtVersion(
      objectId,
      plan.base_version,
      plan.attributes,
      state.action_id,
      now,
      'replace',
    );
    if (!written) {
      const object = await repos.worldObjects.findById(objectId);
      if (object?.last_action_id !== state.action_id) {
        throw drift(
          `world object ${objectId} changed since the repair planned (version ${object?.version ?? 'gone'}, planned on ${plan.base_version})`,
        );
      }
    }
  }
  const externalRevision = plan.external_state ? plan.external_state.base_revision + 1 : null;
  let history: WorldHistoryEvent = {
    _id: `evt_${state.action_id.slice(4)}`,
    kind: OBJECT_REPAIRED,
    object_id: objectId,
    at: now,
    change: {
      action_id: state.action_id,
      repair_id: state.parameters['repair_id'],
      source: plan.source,
      plan_digest: plan.digest,
      attributes: plan.attributes,
      changes: plan.diff.attributes,
      external_changes: plan.diff.external_state,
      version,
      external_revision: externalRevision,
    },
  };
  if (plan.external_state && externalRevision !== null) {
    history = await commitExternalState(repos, plan, externalRevision, history, now);
  }
  await repos.worldHistory.appendOnce(history);
  return { object_id: objectId, version, external_revision: externalRevision };
}

/** Commits the planned external state as revision `revision` (or finds this action's). */
async function commitExternalState(
  repos: RestoreRepos,
  plan: RepairPlan,
  revision: number,
  history: WorldHistoryEvent,
  now: string,
): Promise<WorldHistoryEvent> {
  const planned = plan.external_state!;
  const objectId = plan.object_id;
  const previous = await repos.worldExternalState.findRevision(objectId, planned.base_revision);
  const next: ExternalState = {
    revision,
    fields: planned.fields,
    provenance: planned.provenance,
    generation: planned.generation,
    observed_generation: planned.generation,
    conditions: settledConditions(
      {
        generation: planned.generation,
        provenance: planned.provenance,
        conditions: previous?.state.conditions ?? [],
      },
      now,
    ),
    last_event_id: planned.last_event_id,
    updated_at: now,
  };
  const won = await repos.worldExternalState.claimRevision(
    revisionRecord(objectId, next, history, now),
  );
  if (won) {
    await repos.worldExternalState.project(objectId, next);
    return history;
  }
  const committed = await repos.worldExternalState.findRevision(objectId, revision);
  if (committed?.history._id !== history._id) {
    throw drift(
      `the external state of ${objectId} moved on to revision ${revision} since the repair planned on ${planned.base_revision}`,
    );
  }
  await repos.worldExternalState.project(objectId, committed.state);
  return committed.history;
}
