import { checkedCells } from './cell-bytes';
import { windowRows, wrapIndex } from './grid-window';
import type { LifeRule } from './rules';
import { packSnapshot, stateDigest } from './snapshot';
import type { Box, Substrate } from './types';

/** What a life lattice starts from: one byte per cell (non-zero live), row-major. */
export interface LatticeStart {
  width: number;
  height: number;
  rule: LifeRule;
  cells: Uint8Array;
  tick?: number;
}

/**
 * The straightforward outer-totalistic engine: one byte per cell, the 8 neighbours counted
 * one by one (with torus wrap) into a second array. Kept deliberately plain: it is the oracle
 * the fast engine is tested against and the baseline the benchmark compares with. On tiny
 * lattices a neighbour position may wrap onto the same cell (or the cell itself); it is
 * counted once per position, which is the definition the fast engine matches.
 */
export class ReferenceLattice implements Substrate {
  readonly scaffold = 'life-lattice';
  readonly width: number;
  readonly height: number;
  readonly rule: string;
  private readonly lifeRule: LifeRule;
  private cells: Uint8Array;
  private next: Uint8Array;
  private currentTick: number;

  constructor(start: LatticeStart) {
    this.width = start.width;
    this.height = start.height;
    this.lifeRule = start.rule;
    this.rule = start.rule.text;
    this.cells = Uint8Array.from(checkedCells(start), (cell) => (cell ? 1 : 0));
    this.next = new Uint8Array(this.cells.length);
    this.currentTick = start.tick ?? 0;
  }

  get tick(): number {
    return this.currentTick;
  }

  step(ticks = 1): void {
    if (!Number.isSafeInteger(ticks) || ticks < 0)
      throw new RangeError(`ticks ${ticks} is not a non-negative integer`);
    const { width, height } = this;
    const { birth, survive } = this.lifeRule;
    for (let t = 0; t < ticks; t += 1) {
      const cells = this.cells;
      const next = this.next;
      for (let y = 0; y < height; y += 1) {
        const up = ((y + height - 1) % height) * width;
        const row = y * width;
        const down = ((y + 1) % height) * width;
        for (let x = 0; x < width; x += 1) {
          const left = (x + width - 1) % width;
          const right = (x + 1) % width;
          const neighbours =
            cells[up + left] +
            cells[up + x] +
            cells[up + right] +
            cells[row + left] +
            cells[row + right] +
            cells[down + left] +
            cells[down + x] +
            cells[down + right];
          const alive = cells[row + x] === 1;
          next[row + x] = (alive ? survive[neighbours] : birth[neighbours]) ? 1 : 0;
        }
      }
      this.cells = next;
      this.next = cells;
      this.currentTick += 1;
    }
  }

  get(x: number, y: number): boolean {
    return this.cells[wrapIndex(y, this.height) * this.width + wrapIndex(x, this.width)] === 1;
  }

  liveCells(): Array<[number, number]> {
    const live: Array<[number, number]> = [];
    for (let i = 0; i < this.cells.length; i += 1) {
      if (this.cells[i]) live.push([i % this.width, Math.floor(i / this.width)]);
    }
    return live;
  }

  population(): number {
    let total = 0;
    for (const cell of this.cells) total += cell;
    return total;
  }

  boundingBox(): Box | null {
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -1;
    let maxY = -1;
    for (const [x, y] of this.liveCells()) {
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
    if (maxX < 0) return null;
    return { x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1 };
  }

  window(box: Box): string[] {
    return windowRows(this, box);
  }

  snapshot(): Uint8Array {
    return packSnapshot(this.width, this.height, this.cells);
  }

  digest(): string {
    return stateDigest(this.width, this.height, this.snapshot());
  }

  clone(): ReferenceLattice {
    return new ReferenceLattice({
      width: this.width,
      height: this.height,
      rule: this.lifeRule,
      cells: this.cells,
      tick: this.currentTick,
    });
  }
}
