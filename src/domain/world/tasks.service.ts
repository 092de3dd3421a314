import { Conflict, InvalidState, Invalid, notFound } from '../../lib/errors';
import type { CreateWorldTaskRequest, UpdateWorldTaskRequest } from './schemas';
import { newId } from '../../lib/ids';
import { isoNow } from '../../lib/time';
import type { Repos } from '../../store';
import type { WorldHistoryEvent } from '../../store/world-history.repo';
import type { WorldTask } from '../../store/world-tasks.repo';
import { TASK_TRANSITIONS, canTransition, isFinalState } from './task-states';
import { toTaskView } from './views';

type TaskRepos = Pick<Repos, 'worldObjects' | 'worldTasks' | 'worldHistory'>;
/** What the task service needs (an `DomainInfra` will do). */
type TaskDeps = { repos: TaskRepos };

/** Claims lost in a row before an update without `expected_version` gives up with 409. */
const MAX_ATTEMPTS = 5;

/**
 * Creates a task (version 1) and its `task.created` history event. Every `object_refs` entry
 * must name an existing object, else 422 naming the unknown ones.
 */
export async function createTask(deps: TaskDeps, body: CreateWorldTaskRequest) {
  const { repos } = deps;
  const refs = body.object_refs ?? [];
  const missing = await repos.worldObjects.missingIds(refs);
  if (missing.length > 0) {
    throw new Invalid(
      missing.map((id) => ({
        loc: ['body', 'object_refs', refs.indexOf(id)],
        msg: `Unknown world object ${id}`,
        type: 'value_error',
      })),
    );
  }
  const now = isoNow();
  const task: WorldTask = {
    _id: newId('tsk'),
    title: body.title,
    state: body.state ?? 'open',
    object_refs: refs,
    ...(body.shared_context_id ? { shared_context_id: body.shared_context_id } : {}),
    version: 1,
    created_at: now,
    updated_at: now,
  };
  const { title, state, object_refs, shared_context_id } = task;
  const after = { title, state, object_refs, ...(shared_context_id ? { shared_context_id } : {}) };
  const event = taskEvent('task.created', task, { after, version: 1 });
  await commit(repos, task, event);
  return toTaskView(task);
}

/**
 * Moves a task along its state machine (and optionally retitles it). Checks, in order:
 * unknown task 404; `expected_version` not the current version 409 `conflict`; a final
 * task or an illegal transition 409 `invalid_state`. The write claims the next version by
 * inserting it, so of several concurrent updates of one version exactly one wins; without
 * `expected_version` a lost claim is retried against the new version.
 */
export async function updateTask(deps: TaskDeps, taskId: string, body: UpdateWorldTaskRequest) {
  const { repos } = deps;
  for (let attempt = 1; ; attempt += 1) {
    const current = await currentTask(repos, taskId);
    if (!current) throw notFound(`task ${taskId}`);
    if (body.expected_version !== undefined && body.expected_version !== current.version) {
      throw new Conflict(
        `task ${taskId} is at version ${current.version}, not ${body.expected_version}`,
        { extra: { current_version: current.version } },
      );
    }
    const next = nextTask(current, body, isoNow());
    if (!next) return { ...toTaskView(current), previous_state: current.state };
    const event = taskEvent('task.updated', next, changeOf(current, next));
    if (await repos.worldTasks.claimVersion(next, event)) {
      await finish(repos, next, event);
      return { ...toTaskView(next), previous_state: current.state };
    }
    if (attempt >= MAX_ATTEMPTS && body.expected_version === undefined) {
      throw new Conflict(`task ${taskId} is changing concurrently; retry`);
    }
    // Lost the claim: the next round reads the winner's version (and answers 409 `conflict`
    // when the caller pinned `expected_version`).
  }
}

/** The task after the update, or null when nothing would change; throws `invalid_state`. */
function nextTask(current: WorldTask, body: UpdateWorldTaskRequest, now: string): WorldTask | null {
  if (isFinalState(current.state)) {
    throw new InvalidState(`task is ${current.state}, a final state`, {
      extra: { state: current.state, allowed: [] },
    });
  }
  const retitled = body.title !== undefined && body.title !== current.title;
  if (body.state === current.state) {
    if (!retitled) return null;
  } else if (!canTransition(current.state, body.state)) {
    throw new InvalidState(`a task cannot go from ${current.state} to ${body.state}`, {
      extra: { state: current.state, allowed: TASK_TRANSITIONS[current.state] },
    });
  }
  return {
    ...current,
    state: body.state,
    ...(retitled ? { title: body.title } : {}),
    version: current.version + 1,
    updated_at: now,
  };
}

function changeOf(before: WorldTask, after: WorldTask): Record<string, unknown> {
  const change: Record<string, unknown> = {};
  if (before.state !== after.state) change['state'] = { from: before.state, to: after.state };
  if (before.title !== after.title) change['title'] = { from: before.title, to: after.title };
  return { ...change, version: after.version };
}

function taskEvent(kind: string, task: WorldTask, change: Record<string, unknown>) {
  const event: WorldHistoryEvent = {
    _id: newId('evt'),
    kind,
    task_id: task._id,
    object_refs: task.object_refs,
    at: task.updated_at,
    change,
  };
  return event;
}

/** Claims version 1 (a fresh id cannot be taken) and finishes. */
async function commit(repos: TaskRepos, task: WorldTask, event: WorldHistoryEvent) {
  await repos.worldTasks.claimVersion(task, event);
  await finish(repos, task, event);
}

/** After a claim: the history event, then the current-task record. Both idempotent. */
async function finish(repos: TaskRepos, task: WorldTask, event: WorldHistoryEvent) {
  await repos.worldHistory.appendOnce(event);
  await repos.worldTasks.project(task);
}

/**
 * The task as of its newest claimed version: the stored current record, then the version
 * log walked forward by `_id` (one read when nothing is pending). A version found past the
 * record belongs to a writer that may have died before finishing; its work is finished
 * here (event appended, record moved forward), which is harmless if it is still alive.
 */
async function currentTask(repos: TaskRepos, taskId: string): Promise<WorldTask | null> {
  let task = await repos.worldTasks.findById(taskId);
  let pending = false;
  if (!task) {
    const first = await repos.worldTasks.findVersion(taskId, 1);
    if (!first) return null;
    await repos.worldHistory.appendOnce(first.event);
    task = first.task;
    pending = true;
  }
  for (;;) {
    const next = await repos.worldTasks.findVersion(taskId, task.version + 1);
    if (!next) break;
    await repos.worldHistory.appendOnce(next.event);
    task = next.task;
    pending = true;
  }
  if (pending) await repos.worldTasks.project(task);
  return task;
}
