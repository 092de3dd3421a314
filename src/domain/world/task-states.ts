import type { TaskState } from './schemas';

/** The task state machine (docs/world.md): where each state may go next. */
export const TASK_TRANSITIONS: Readonly<Record<TaskState, readonly TaskState[]>> = {
  open: ['in_progress', 'blocked', 'cancelled'],
  in_progress: ['blocked', 'done', 'cancelled', 'open'],
  blocked: ['in_progress', 'cancelled'],
  done: [],
  cancelled: [],
};

/** True for `done` and `cancelled`: nothing about the task changes any more. */
export const isFinalState = (state: TaskState): boolean => TASK_TRANSITIONS[state].length === 0;

/** True when the machine allows `from` → `to` (staying put is not a transition). */
export const canTransition = (from: TaskState, to: TaskState): boolean =>
  TASK_TRANSITIONS[from].includes(to);
