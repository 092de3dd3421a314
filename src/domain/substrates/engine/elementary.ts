import { BitPackedSubstrate } from './bit-packed-substrate';
import { packCells } from './bit-rows';
import { checkedCells } from './cell-bytes';
import type { ElementaryRule } from './rules';

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
export class ElementaryRing extends BitPackedSubstrate {
  readonly scaffold = 'elementary-1d';
  readonly rule: string;
  private readonly elementaryRule: ElementaryRule;
  /** Per (left, centre) pair j: the table bit for right = 0, and its xor with right = 1. */
  private readonly whenRightDead: Int32Array;
  private readonly rightFlips: Int32Array;

  /** `packed`: words to adopt instead of packing `start.cells` (how clones are made). */
  constructor(start: RingStart, packed?: Int32Array) {
    const layout = BitPackedSubstrate.layoutOf(start.width, 1);
    const words = packed ?? packCells(layout, checkedCells({ ...start, height: 1 }));
    super(layout, words, start.tick ?? 0);
    this.elementaryRule = start.rule;
    this.rule = start.rule.text;
    const bit = (index: number) => ((start.rule.number >> index) & 1 ? -1 : 0);
    this.whenRightDead = Int32Array.from([0, 1, 2, 3], (j) => bit(2 * j));
    this.rightFlips = Int32Array.from([0, 1, 2, 3], (j) => bit(2 * j) ^ bit(2 * j + 1));
  }

  protected advance(src: Int32Array, dst: Int32Array): void {
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

  clone(): ElementaryRing {
    return new ElementaryRing(
      {
        width: this.width,
        rule: this.elementaryRule,
        cells: new Uint8Array(0),
        tick: this.tick,
      },
      this.words.slice(),
    );
  }
}
