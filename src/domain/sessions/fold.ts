import type { SessionCommand } from './schemas';
import type { SessionFold } from '../../store/session-steps.repo';
import { memoryDigestAfter, memoryGenesis } from './identity';

/** Newest notes `recall` returns (and each step's fold points at). */
export const NOTE_WINDOW = 50;
/** Newest distinct objects a session's fold remembers. */
export const OBJECT_WINDOW = 50;

/** The fold of a session before its first step. */
export const emptyFold = (sessionDigest: string): SessionFold => ({
  steps: 0,
  closed: false,
  by_command: {},
  notes: 0,
  note_steps: [],
  objects: [],
  memory_digest: memoryGenesis(sessionDigest),
  first_at: '',
});

/** What one step contributes to the fold. */
export interface StepFacts {
  step: number;
  command: SessionCommand;
  at: string;
  /** World objects the step inspected or referenced. */
  objects: string[];
  /** The note, for a `note` step. */
  note?: { text: string; refs: string[] };
}

/** The session after a step: a pure function of the fold before it and the step. */
export function foldStep(before: SessionFold, facts: StepFacts): SessionFold {
  const objects = [...before.objects.filter((id) => !facts.objects.includes(id)), ...facts.objects];
  return {
    steps: facts.step,
    closed: before.closed || facts.command === 'close',
    by_command: {
      ...before.by_command,
      [facts.command]: (before.by_command[facts.command] ?? 0) + 1,
    },
    notes: before.notes + (facts.note ? 1 : 0),
    note_steps: facts.note
      ? [...before.note_steps, facts.step].slice(-NOTE_WINDOW)
      : before.note_steps,
    objects: objects.slice(-OBJECT_WINDOW),
    memory_digest: facts.note
      ? memoryDigestAfter(before.memory_digest, facts.step, facts.note)
      : before.memory_digest,
    first_at: before.first_at || facts.at,
  };
}

/** `4 steps: 2 note, 1 list_objects, 1 recall` */
export function describeCommands(fold: SessionFold): string {
  const parts = Object.entries(fold.by_command)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([command, count]) => `${count} ${command}`);
  const steps = `${fold.steps} step${fold.steps === 1 ? '' : 's'}`;
  return parts.length > 0 ? `${steps}: ${parts.join(', ')}` : steps;
}
