import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Piscina } from 'piscina';
import { restoreSubstrate, type EngineParams, type ScaffoldKind, type Substrate } from './engine';

/** One state to step: where it is and how far to go. */
export interface StepTask {
  scaffold: ScaffoldKind;
  params: EngineParams;
  tick: number;
  snapshot: Uint8Array;
  ticks: number;
}

export interface Stepper {
  /** `state` advanced `ticks` generations: `state` itself stepped inline, or a new one. */
  advance(state: Substrate, params: EngineParams, ticks: number): Promise<Substrate>;
  /** Steps run on a pool thread so far (the rest ran inline). */
  offloaded(): number;
  close(): Promise<void>;
}

/**
 * The compiled thread module: beside this file in `dist`, and there too when the source runs
 * under ts-jest (a thread cannot load TypeScript), which is why tests build `dist` first.
 */
function threadModule(): string {
  const sibling = join(__dirname, 'step-thread.js');
  if (__filename.endsWith('.js')) return sibling;
  const compiled = resolve(__dirname, '../../../dist/src/domain/substrates/step-thread.js');
  if (!existsSync(compiled)) throw new Error(`engine thread module not built: ${compiled}`);
  return compiled;
}

/**
 * Engine stepping for readers (observe, recognize, render, assays): up to one snapshot
 * interval of engine work, about 0.2 s at the largest envelope. With `threads > 0` (the api)
 * it runs on a pool of worker threads so the event loop keeps answering; with 0 (the worker
 * process, whose activities already run apart from approvals on the compute queue) inline.
 */
export function createStepper(options: { threads: number }): Stepper {
  const pool =
    options.threads > 0
      ? new Piscina({ filename: threadModule(), minThreads: 1, maxThreads: options.threads })
      : undefined;
  let offloaded = 0;
  return {
    async advance(state, params, ticks) {
      if (!pool || ticks === 0) {
        state.step(ticks);
        return state;
      }
      const task: StepTask = {
        scaffold: state.scaffold,
        params,
        tick: state.tick,
        snapshot: state.snapshot(),
        ticks,
      };
      const { snapshot } = (await pool.run(task)) as { snapshot: Uint8Array };
      offloaded += 1;
      return restoreSubstrate(state.scaffold, params, state.tick + ticks, snapshot);
    },
    offloaded: () => offloaded,
    close: async () => {
      await pool?.destroy();
    },
  };
}
