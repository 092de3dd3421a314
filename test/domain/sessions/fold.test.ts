import {
  NOTE_WINDOW,
  OBJECT_WINDOW,
  describeCommands,
  emptyFold,
  foldStep,
  type StepFacts,
} from '../../../src/domain/sessions/fold';

const at = (step: number) => `2026-01-01T00:00:${String(step % 60).padStart(2, '0')}.000Z`;
const fact = (step: number, facts: Partial<StepFacts> = {}): StepFacts => ({
  step,
  command: 'recall',
  at: at(step),
  objects: [],
  ...facts,
});
const run = (steps: StepFacts[]) => steps.reduce(foldStep, emptyFold('session-digest'));

describe('foldStep (a session as the fold of its steps)', () => {
  it('counts steps per command, notes and the first step time', () => {
    const fold = run([
      fact(1, { command: 'observe_world' }),
      fact(2, { command: 'note', note: { text: 'a', refs: [] } }),
      fact(3, { command: 'note', note: { text: 'b', refs: [] } }),
    ]);
    expect(fold).toMatchObject({
      steps: 3,
      closed: false,
      notes: 2,
      note_steps: [2, 3],
      by_command: { observe_world: 1, note: 2 },
      first_at: at(1),
    });
    expect(describeCommands(fold)).toBe('3 steps: 2 note, 1 observe_world');
  });

  it('chains the memory digest over notes only, the same for the same notes', () => {
    const notes = [
      fact(1, { command: 'note', note: { text: 'a', refs: [] } }),
      fact(2, { command: 'recall' }),
    ];
    const once = run(notes);
    expect(once.memory_digest).not.toBe(emptyFold('session-digest').memory_digest);
    expect(run(notes).memory_digest).toBe(once.memory_digest);
    expect(foldStep(once, fact(3)).memory_digest).toBe(once.memory_digest);
    const other = run([fact(1, { command: 'note', note: { text: 'b', refs: [] } })]);
    expect(other.memory_digest).not.toBe(once.memory_digest);
  });

  it('remembers objects newest last, once each, within its window', () => {
    const fold = run([
      fact(1, { command: 'inspect_object', objects: ['obj_a'] }),
      fact(2, { command: 'inspect_object', objects: ['obj_b'] }),
      fact(3, { command: 'inspect_object', objects: ['obj_a'] }),
    ]);
    expect(fold.objects).toEqual(['obj_b', 'obj_a']);
    const many = run(
      Array.from({ length: OBJECT_WINDOW + 5 }, (_, i) =>
        fact(i + 1, { command: 'inspect_object', objects: [`obj_${i}`] }),
      ),
    );
    expect(many.objects).toHaveLength(OBJECT_WINDOW);
    expect(many.objects.at(-1)).toBe(`obj_${OBJECT_WINDOW + 4}`);
  });

  it('keeps the newest notes within its window, and stays closed after close', () => {
    const fold = run(
      Array.from({ length: NOTE_WINDOW + 3 }, (_, i) =>
        fact(i + 1, { command: 'note', note: { text: String(i), refs: [] } }),
      ),
    );
    expect(fold.note_steps).toHaveLength(NOTE_WINDOW);
    expect(fold.note_steps[0]).toBe(4);
    expect(fold.notes).toBe(NOTE_WINDOW + 3);
    expect(foldStep(foldStep(fold, fact(100, { command: 'close' })), fact(101)).closed).toBe(true);
  });
});
