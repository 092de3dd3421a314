import type { RecordTransitionInput } from '../activities/external-actions.activities';
import type { RecordEffect } from './action-machine';

/** What the record chain needs from the workflow: its clock, the ledger head, the activity. */
export interface ActionRecordsDeps {
  now: () => string;
  /** The ledger head the next batch chains to (the machine's, at the moment the batch runs). */
  head: () => string | null;
  /** Records a batch (the record activity), answering the new ledger head. */
  persist: (inputs: RecordTransitionInput[], summary: string) => Promise<string>;
  /** A batch landed: the machine takes its head. */
  landed: (head: string) => void;
  summaryOf: (effect: RecordEffect) => string;
}

/** A deep copy that the workflow sandbox can always make (plain JSON state). */
export const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * The action workflow's record chain. Records run one after another, so the ledger chain and
 * projection follow the state; transitions queue up while a record runs and the next record
 * takes them all at once (one local activity, one projection write and one witness slot for
 * the batch). Held (the lean shape's execution, docs/workflow-versioning.md "Shapes"), the
 * transitions into `executing` wait for the one activity that records them with the effect
 * and its outcome; decisions refused meanwhile wait for that outcome, so their entries follow
 * it. Workflow code: deterministic.
 */
export function createActionRecords(deps: ActionRecordsDeps) {
  const queued: Array<RecordTransitionInput & { summary: string }> = [];
  let recording: Promise<void> = Promise.resolve();
  const held: RecordTransitionInput[] = [];
  let holding = false;
  let inFlight = false;
  const waiting: Array<() => void> = [];
  let landing: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  const executionRecorded = new Promise<void>((resolve, reject) => {
    landing = { resolve, reject };
  });
  executionRecorded.catch(() => undefined);

  return {
    /** Queues a record; settles when it (and every record before it) has landed. */
    record({ state, event, actor, detail }: RecordEffect): Promise<void> {
      const input = { state: copy(state), at: deps.now(), event, actor, detail };
      if (holding) {
        held.push(input);
        return executionRecorded;
      }
      const summary = deps.summaryOf({ kind: 'record', state, event, actor, detail });
      queued.push({ ...input, summary });
      recording = recording.then(async () => {
        const batch = queued.splice(0, queued.length);
        if (batch.length === 0) return; // an earlier record took it
        batch[0].state.ledger_head = deps.head();
        const inputs = batch.map(({ summary: _summary, ...rest }) => rest);
        deps.landed(await deps.persist(inputs, batch.map((b) => b.summary).join('; ')));
      });
      return recording;
    },
    /** Settles when every record queued so far has landed. */
    settled: (): Promise<void> => recording,
    /** Whether records are being held now (the transition into `executing` is performed). */
    holding: (): boolean => holding,
    /** Runs `perform` with its records held when `hold`: the lean execution takes them. */
    holdWhile<T>(hold: boolean, perform: () => T): T {
      holding = hold;
      inFlight ||= hold;
      try {
        return perform();
      } finally {
        holding = false;
      }
    },
    /** Transitions held for the lean execution (none when the classic one runs). */
    heldCount: (): number => held.length,
    /**
     * The lean execution: once every record before it has landed, `execute` records the held
     * transitions (the first chained to the head), the effect and its outcome; then whoever
     * waited on the held transitions, and decisions refused meanwhile, go on.
     */
    async executeHeld<T>(execute: (records: RecordTransitionInput[]) => Promise<T>): Promise<T> {
      await recording;
      const records = held.splice(0, held.length);
      records[0].state.ledger_head = deps.head();
      try {
        const done = await execute(records);
        landing?.resolve();
        return done;
      } catch (error) {
        landing?.reject(error);
        throw error;
      } finally {
        inFlight = false;
        for (const release of waiting.splice(0)) release();
      }
    },
    /**
     * While a lean execution is held or in its activity, what settles once it has recorded
     * (refused decisions wait for it); otherwise null, so the caller goes on in the same turn.
     */
    afterExecution: (): Promise<void> | null =>
      inFlight ? new Promise<void>((resolve) => waiting.push(resolve)) : null,
  };
}
