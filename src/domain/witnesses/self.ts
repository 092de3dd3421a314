import type { DomainInfra } from '../infra';
import { notFound } from '../../lib/errors';
import type { WitnessAction } from '../../store/external-actions.repo';
import type { WorldObject } from '../../store/world-objects.repo';
import type { WorldTask } from '../../store/world-tasks.repo';
import { runtimeRecord } from '../runtime/continuity.service';
import { loadSession } from '../sessions/sessions.service';
import { affect } from './affect';
import { development } from './development';
import { MAX_WITNESS_RECORDS, inputsOf, type WitnessInput } from './inputs';
import { oneCatchUp } from './witness-index';

type Deps = Pick<DomainInfra, 'repos' | 'witnesses'>;

/** Action statuses that commit the runtime to an effect it has not made yet. */
export const COMMITTED_ACTION_STATUSES = ['approved', 'executing'] as const;
/** Action statuses still on their way (the world may yet change because of them). */
export const PENDING_ACTION_STATUSES = ['awaiting_approval', 'approved', 'executing'] as const;
/** Task states the runtime has taken on and not finished. */
export const OPEN_TASK_STATES = ['open', 'in_progress'] as const;
/** Most commitments, failures or objects a readout lists (counts are never cut). */
const LISTED = 50;

const actionInput = (action: WitnessAction): WitnessInput => ({
  kind: 'action',
  id: action._id,
  version: action.seq,
});
const taskInput = (task: WorldTask): WitnessInput => ({
  kind: 'task',
  id: task._id,
  version: task.version,
});

/** The records of `ids` in any of `groups`, newest first (ULID `_id`), at most the bound. */
function newestIn<T extends { _id: string }>(
  records: Map<string, T>,
  index: Map<string, Set<string>>,
  groups: readonly string[],
): T[] {
  const ids = groups.flatMap((group) => [...(index.get(group) ?? [])]);
  ids.sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  return ids.slice(0, MAX_WITNESS_RECORDS).map((id) => records.get(id)!);
}

/** Actions now in any of `statuses`, and tasks in any of `states`, from the witness index. */
async function current(
  deps: Deps,
  statuses: readonly string[],
  states: readonly string[],
): Promise<{ actions: WitnessAction[]; tasks: WorldTask[] }> {
  const fold = await deps.witnesses.current();
  return {
    actions: newestIn(fold.actions, fold.actionsByStatus, statuses),
    tasks: newestIn(fold.tasks, fold.tasksByState, states),
  };
}

/**
 * `GET /v1/runtime/self-report`: who the runtime is (identity and lineage), how it is (affect
 * over the window, development), what it has committed to, and what failed lately, in one
 * structured document; with `session_id`, that session too.
 */
export async function selfReport(
  deps: Deps,
  query: { window_seconds?: number; session_id?: string },
  now = new Date(),
) {
  const windowSeconds = query.window_seconds ?? 3600;
  const session = query.session_id ? await loadSession(deps, query.session_id) : null;
  deps = oneCatchUp(deps);
  const [runtime, head, mood, growth, committed] = await Promise.all([
    runtimeRecord(deps),
    deps.repos.sessions.lineageHead(),
    affect(deps, windowSeconds, now),
    development(deps, now),
    current(deps, COMMITTED_ACTION_STATUSES, OPEN_TASK_STATES),
  ]);
  const failures = (await deps.witnesses.current()).outcomes
    .between(mood.window.from, mood.window.to)
    .filter((entry) => entry.event === 'failed' || entry.event === 'expired')
    .slice(0, LISTED)
    .map((entry) => ({
      kind: 'action',
      id: entry.action_id,
      status: entry.event,
      at: entry.at,
      reason: entry.reason,
    }));
  const read: WitnessInput[] = [
    ...committed.actions.map(actionInput),
    ...committed.tasks.map(taskInput),
    ...(session?.newest ? [{ kind: 'session_step', id: session.newest._id, version: 1 }] : []),
  ];
  // The sub-witnesses enter by their own digests: the same records give the same report.
  read.push(
    { kind: 'affect', id: mood.inputs.digest, version: 1 },
    { kind: 'development', id: growth.inputs.digest, version: 1 },
  );
  return {
    witness: 'self_report',
    computed_at: now.toISOString(),
    window: mood.window,
    inputs: inputsOf(read, {}, mood.inputs.bounded),
    identity: {
      runtime_id: runtime.runtime_id,
      identity_digest: runtime.identity_digest,
      since: runtime.created_at,
      sessions: head?.sessions ?? 0,
      lineage_head: head?.digest ?? null,
    },
    status: 'active' as const,
    affect: { valence: mood.valence, arousal: mood.arousal, outcomes: mood.outcomes },
    development: {
      stage: growth.stage,
      experience: growth.experience,
      next_stage: growth.next_stage,
    },
    commitments: {
      actions: committed.actions.length,
      tasks: committed.tasks.length,
      items: [
        ...committed.actions.slice(0, LISTED).map((action) => ({
          kind: 'action',
          id: action._id,
          status: action.status,
          about: action.target.world_object_ref ?? action.target.url ?? null,
          since: action.updated_at,
        })),
        ...committed.tasks.slice(0, LISTED).map((task) => ({
          kind: 'task',
          id: task._id,
          status: task.state,
          about: task.object_refs[0] ?? null,
          since: task.updated_at,
        })),
      ],
    },
    open_tasks: committed.tasks.length,
    recent_failures: failures,
    session: session && {
      session_id: session.session._id,
      continuity_mode: session.session.continuity_mode,
      state: session.fold.closed ? 'closed' : 'active',
      steps: session.fold.steps,
    },
  };
}

/** An object's reconciliation as coherence judges it (docs/witnesses.md). */
function reconciliationOf(object: WorldObject) {
  const state = object.external_state as
    { revision?: number; conditions?: { type: string; status: string }[] } | undefined;
  if (!state || typeof state.revision !== 'number') {
    return { revision: null, reconciled: null, conflict: false, coherent: true };
  }
  const condition = (type: string) => state.conditions?.find((c) => c.type === type)?.status;
  const reconciled = condition('Reconciled') === 'True';
  const conflict = condition('ConflictFree') === 'False';
  return { revision: state.revision, reconciled, conflict, coherent: reconciled && !conflict };
}

/**
 * `GET /v1/runtime/integrated-self-world`: the self (identity, stage, affect) beside the part
 * of the world it is committed to: each object a pending action targets or an open task
 * names, with those actions and tasks and its reconciliation state; `coherence` is the share
 * of those objects whose external state is reconciled with no conflict (null: none).
 */
export async function integratedSelfWorld(
  deps: Deps,
  query: { window_seconds?: number },
  now = new Date(),
) {
  const windowSeconds = query.window_seconds ?? 3600;
  deps = oneCatchUp(deps);
  const [runtime, mood, growth, { actions: pending, tasks }] = await Promise.all([
    runtimeRecord(deps),
    affect(deps, windowSeconds, now),
    development(deps, now),
    current(deps, PENDING_ACTION_STATUSES, OPEN_TASK_STATES),
  ]);
  const byObject = new Map<string, { actions: string[]; tasks: string[] }>();
  const entry = (id: string) => {
    let found = byObject.get(id);
    if (!found) byObject.set(id, (found = { actions: [], tasks: [] }));
    return found;
  };
  for (const action of pending) {
    const target = action.target.world_object_ref;
    if (target) entry(target).actions.push(action._id);
  }
  for (const task of tasks) for (const ref of task.object_refs) entry(ref).tasks.push(task._id);
  const ids = [...byObject.keys()].sort();
  const objects = (await Promise.all(ids.map((id) => deps.repos.worldObjects.findById(id)))).filter(
    (object): object is WorldObject => object !== null,
  );
  const world = objects.map((object) => {
    const links = byObject.get(object._id)!;
    const reconciliation = reconciliationOf(object);
    return {
      object_id: object._id,
      name: object.name,
      kind: object.kind,
      version: object.version,
      pending_actions: links.actions,
      open_tasks: links.tasks,
      reconciliation,
    };
  });
  const coherent = world.filter((item) => item.reconciliation.coherent).length;
  const read: WitnessInput[] = [
    ...pending.map(actionInput),
    ...tasks.map(taskInput),
    ...objects.map((object) => ({
      kind: 'object',
      id: object._id,
      version: `${object.version}.${(object.external_state as { revision?: number })?.revision ?? 0}`,
    })),
  ];
  return {
    witness: 'integrated_self_world',
    computed_at: now.toISOString(),
    window: mood.window,
    inputs: inputsOf(read, {}, mood.inputs.bounded || pending.length >= MAX_WITNESS_RECORDS),
    self: {
      runtime_id: runtime.runtime_id,
      identity_digest: runtime.identity_digest,
      stage: growth.stage,
      valence: mood.valence,
      arousal: mood.arousal,
    },
    world: {
      committed_objects: world.length,
      coherent_objects: coherent,
      objects: world.slice(0, LISTED),
    },
    coherence: world.length === 0 ? null : Math.round((coherent / world.length) * 1000) / 1000,
  };
}

/** 404 for a session the caller names that does not exist (the focus of a readout). */
export async function requireSession(deps: Deps, sessionId: string | undefined): Promise<void> {
  if (sessionId && !(await deps.repos.sessions.findById(sessionId))) {
    throw notFound(`session ${sessionId}`);
  }
}
