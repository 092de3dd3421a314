import {
  bitAt,
  bitRowLayout,
  boundingBoxOf,
  liveCellsOf,
  packCells,
  populationOf,
  snapshotOfWords,
  type BitRowLayout,
} from './bit-rows';
import { windowRows, wrapIndex } from './grid-window';
import { checkedCells } from './cell-bytes';
import type { ElementaryRule } from './rules';
import { stateDigest } from './snapshot';
import type { Box, Substrate } from './types';

/** What an elementary ring starts from: one byte per cell (non-zero live). */
export interface RingStart {
  width: number;
  rule: ElementaryRule;
  cells: Uint8Array;
  tick?: number;
}

/**
 * A Wolfram elementary automaton on a ring of `width` cells (one row, height 1), bit-packed
 * like the life lattice (`bit-rows.ts`). Each word's next value is the rule's truth table
 * evaluated on the west, centre and east words as a 3-level multiplexer with the table's
 * bits as constants. On rings of 1 or 2 cells the west and east neighbours wrap onto the same
 * cells, as the definition says.
 */
export class ElementaryRing implements Substrate {
  readonly scaffold = 'elementary-1d';
  readonly width: number;
  readonly height = 1;
  readonly rule: string;
  private readonly elementaryRule: ElementaryRule;
  private readonly layout: BitRowLayout;
  /** Per (left, centre) pair j: the table bit for right = 0, and its xor with right = 1. */
  private readonly whenRightDead: Int32Array;
  private readonly rightFlips: Int32Array;
  private words: Int32Array;
  private spare: Int32Array;
  private currentTick: number;

  /** `packed`: words to adopt instead of packing `start.cells` (how clones are made). */
  constructor(start: RingStart, packed?: Int32Array) {
    this.width = start.width;
    this.elementaryRule = start.rule;
    this.rule = start.rule.text;
    this.layout = bitRowLayout(start.width, 1);
    const bit = (index: number) => ((start.rule.number >> index) & 1 ? -1 : 0);
    this.whenRightDead = Int32Array.from([0, 1, 2, 3], (j) => bit(2 * j));
    this.rightFlips = Int32Array.from([0, 1, 2, 3], (j) => bit(2 * j) ^ bit(2 * j + 1));
    this.words = packed ?? packCells(this.layout, checkedCells({ ...start, height: 1 }));
    this.spare = new Int32Array(this.words.length);
    this.currentTick = start.tick ?? 0;
  }

  get tick(): number {
    return this.currentTick;
  }

  step(ticks = 1): void {
    if (!Number.isSafeInteger(ticks) || ticks < 0)
      throw new RangeError(`ticks ${ticks} is not a non-negative integer`);
    for (let t = 0; t < ticks; t += 1) {
      this.stepOnce(this.words, this.spare);
      [this.words, this.spare] = [this.spare, this.words];
      this.currentTick += 1;
    }
  }

  private stepOnce(src: Int32Array, dst: Int32Array): void {
    const n = this.layout.wordsPerRow;
    const seam = 32 * n - this.width;
    const [g0, g1, g2, g3] = this.whenRightDead;
    const [f0, f1, f2, f3] = this.rightFlips;
    const first = src[0];
    const last = src[n - 1];
    let previous = (last >>> seam) & 1;
    for (let k = 0; k < n; k += 1) {
      const centre = src[k];
      const left = (centre >>> 1) | (previous << 31);
      const right = (centre << 1) | (k + 1 < n ? src[k + 1] >>> 31 : (first >>> 31) << seam);
      const leftDeadCentreDead = g0 ^ (right & f0);
      const leftDeadCentreLive = g1 ^ (right & f1);
      const leftLiveCentreDead = g2 ^ (right & f2);
      const leftLiveCentreLive = g3 ^ (right & f3);
      const leftDead = leftDeadCentreDead ^ (centre & (leftDeadCentreLive ^ leftDeadCentreDead));
      const leftLive = leftLiveCentreDead ^ (centre & (leftLiveCentreLive ^ leftLiveCentreDead));
      dst[k] = leftDead ^ (left & (leftLive ^ leftDead));
      previous = centre & 1;
    }
    dst[n - 1] &= this.layout.lastWordMask;
  }

  /** One row: every `y` wraps onto it. */
  get(x: number, _y: number): boolean {
    return bitAt(this.layout, this.words, wrapIndex(x, this.width), 0);
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
    return stateDigest(this.width, 1, this.snapshot());
  }

  clone(): ElementaryRing {
    return new ElementaryRing(
      {
        width: this.width,
        rule: this.elementaryRule,
        cells: new Uint8Array(0),
        tick: this.currentTick,
      },
      this.words.slice(),
    );
  }
}
