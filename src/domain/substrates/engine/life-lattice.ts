import { BitPackedSubstrate } from './bit-packed-substrate';
import { packCells } from './bit-rows';
import {
  rowSumsFor,
  sliceRule,
  stepBitSliced,
  type RowSums,
  type SlicedRule,
} from './bit-sliced-life';
import { checkedCells } from './cell-bytes';
import type { LatticeStart } from './reference-lattice';
import type { LifeRule } from './rules';

/**
 * The fast outer-totalistic engine: any B/S rule on a torus of any size, 32 cells per
 * word operation (`bit-sliced-life.ts`). Cell for cell the same as `ReferenceLattice`.
 */
export class LifeLattice extends BitPackedSubstrate {
  readonly scaffold = 'life-lattice';
  readonly rule: string;
  private readonly lifeRule: LifeRule;
  private readonly sliced: SlicedRule;
  private readonly sums: RowSums;

  /** `packed`: words to adopt instead of packing `start.cells` (how clones are made). */
  constructor(start: LatticeStart, packed?: Int32Array) {
    const layout = BitPackedSubstrate.layoutOf(start.width, start.height);
    super(layout, packed ?? packCells(layout, checkedCells(start)), start.tick ?? 0);
    this.lifeRule = start.rule;
    this.rule = start.rule.text;
    this.sliced = sliceRule(start.rule);
    this.sums = rowSumsFor(layout);
  }

  protected advance(src: Int32Array, dst: Int32Array): void {
    stepBitSliced(this.layout, this.sliced, src, dst, this.sums);
  }

  clone(): LifeLattice {
    return new LifeLattice(
      {
        width: this.width,
        height: this.height,
        rule: this.lifeRule,
        cells: new Uint8Array(0),
        tick: this.tick,
      },
      this.words.slice(),
    );
  }
}
