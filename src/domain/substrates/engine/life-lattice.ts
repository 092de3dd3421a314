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
import {
  rowSumsFor,
  sliceRule,
  stepBitSliced,
  type RowSums,
  type SlicedRule,
} from './bit-sliced-life';
import { windowRows, wrapIndex } from './grid-window';
import { checkedCells } from './cell-bytes';
import type { LatticeStart } from './reference-lattice';
import type { LifeRule } from './rules';
import { stateDigest } from './snapshot';
import type { Box, Substrate } from './types';

/**
 * The fast outer-totalistic engine: any B/S rule on a torus of any size, 32 cells per
 * word operation (`bit-sliced-life.ts`). Cell for cell the same as `ReferenceLattice`.
 */
export class LifeLattice implements Substrate {
  readonly scaffold = 'life-lattice';
  readonly width: number;
  readonly height: number;
  readonly rule: string;
  private readonly lifeRule: LifeRule;
  private readonly layout: BitRowLayout;
  private readonly sliced: SlicedRule;
  private readonly sums: RowSums;
  private words: Int32Array;
  private spare: Int32Array;
  private currentTick: number;

  /** `packed`: words to adopt instead of packing `start.cells` (how clones are made). */
  constructor(start: LatticeStart, packed?: Int32Array) {
    this.width = start.width;
    this.height = start.height;
    this.lifeRule = start.rule;
    this.rule = start.rule.text;
    this.layout = bitRowLayout(start.width, start.height);
    this.sliced = sliceRule(start.rule);
    this.sums = rowSumsFor(this.layout);
    this.words = packed ?? packCells(this.layout, checkedCells(start));
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
      stepBitSliced(this.layout, this.sliced, this.words, this.spare, this.sums);
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

  clone(): LifeLattice {
    return new LifeLattice(
      {
        width: this.width,
        height: this.height,
        rule: this.lifeRule,
        cells: new Uint8Array(0),
        tick: this.currentTick,
      },
      this.words.slice(),
    );
  }
}
