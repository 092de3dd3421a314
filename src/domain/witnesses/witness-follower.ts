import type { WitnessFold, WitnessIndex } from './witness-index';

export interface WitnessFollowOptions {
  /** How often the index catches up with the journal between reads. */
  everyMs: number;
  /** How long after the last read it keeps doing so; then the fold is let go. */
  warmForMs: number;
}

/**
 * The journal keeps its newest slots only (at least 15 s of them, `SLOTS_KEPT`); an index
 * that falls further behind folds every stored collection again, which costs as much as all
 * the records there are (seconds of the api's time at the scale suite's larger sizes). Under a
 * burst of writes that happens between two reads a minute apart. So while witnesses are read
 * (within `warmForMs` of the last read) the index catches up every `everyMs` on its own,
 * which costs the journal reads the next read would make anyway; once nobody reads them the
 * fold is let go, and its memory with it.
 */
export function followWitnesses(
  index: WitnessIndex,
  options: WitnessFollowOptions = { everyMs: 5_000, warmForMs: 10 * 60_000 },
) {
  let lastReadAt = 0;
  let timer: NodeJS.Timeout | undefined;

  const stop = (): void => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  /** One turn: catch up while the witnesses were read lately, else let the fold go. */
  const turn = async (now = Date.now()): Promise<void> => {
    if (now - lastReadAt > options.warmForMs) {
      stop();
      index.forget();
      return;
    }
    // A failed catch-up is tried again by the next turn or read.
    await index.current().catch(() => undefined);
  };

  return {
    current(): Promise<WitnessFold> {
      lastReadAt = Date.now();
      if (!timer) {
        timer = setInterval(() => void turn(), options.everyMs);
        timer.unref();
      }
      return index.current();
    },
    turn,
    stop,
  };
}
