import {
  bitAt,
  bitRowLayout,
  boundingBoxOf,
  liveCellsOf,
  populationOf,
  snapshotOfWords,
  type BitRowLayout,
} from './bit-rows';
import { windowRows, wrapIndex } from './grid-window';
import { stateDigest } from './snapshot';
import type { Box, ScaffoldKind, Substrate } from './types';

/**
 * What every bit-packed substrate shares (`bit-rows.ts` layout): the tick, stepping by
 * double buffering, and every read of the state. Subclasses say how one generation goes.
 */
export abstract class BitPackedSubstrate implements Substrate {
  abstract readonly scaffold: ScaffoldKind;
  abstract readonly rule: string;
  readonly width: number;
  readonly height: number;
  protected readonly layout: BitRowLayout;
  protected words: Int32Array;
  private spare: Int32Array;
  private currentTick: number;

  protected constructor(layout: BitRowLayout, words: Int32Array, tick: number) {
    this.width = layout.width;
    this.height = layout.height;
    this.layout = layout;
    this.words = words;
    this.spare = new Int32Array(words.length);
    this.currentTick = tick;
  }

  /** The layout of a `width` x `height` state (for subclasses packing their start). */
  protected static layoutOf(width: number, height: number): BitRowLayout {
    return bitRowLayout(width, height);
  }

  /** Computes the next generation of `src` into `dst` (same layout; padding bits zero). */
  protected abstract advance(src: Int32Array, dst: Int32Array): void;

  abstract clone(): Substrate;

  get tick(): number {
    return this.currentTick;
  }

  step(ticks = 1): void {
    if (!Number.isSafeInteger(ticks) || ticks < 0)
      throw new RangeError(`ticks ${ticks} is not a non-negative integer`);
    for (let t = 0; t < ticks; t += 1) {
      this.advance(this.words, this.spare);
      [this.words, this.spare] = [this.spare, this.words];
      this.currentTick += 1;
    }
  }

  get(x: number, y: number): boolean {
    return bitAt(this.layout, this.words, wrapIndex(x, this.width), wrapIndex(y, this.height));
  }

  liveCells(): Array<[number, number]> {
    return liveCellsOf(this.layout, this.words);
  }

  population(): number {
    return populationOf(this.words);
  }

  boundingBox(): Box | null {
    return boundingBoxOf(this.layout, this.words);
  }

  window(box: Box): string[] {
    return windowRows(this, box);
  }

  snapshot(): Uint8Array {
    return snapshotOfWords(this.layout, this.words);
  }

  digest(): string {
    return stateDigest(this.width, this.height, this.snapshot());
  }
}
