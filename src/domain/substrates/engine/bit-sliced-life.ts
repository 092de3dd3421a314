import type { BitRowLayout } from './bit-rows';
import type { LifeRule } from './rules';

/**
 * One generation of an outer-totalistic rule on bit-packed rows (see `bit-rows.ts`), 32
 * cells per int32 operation.
 *
 * Counting: pass 1 adds each cell and its west and east neighbours into a 2-bit horizontal
 * sum (a full adder on the row shifted one cell each way, with the bits crossing word
 * boundaries and the torus seam carried in). Pass 2 adds the horizontal sums of the rows
 * above, at and below into the 4-bit sum of the 3×3 block, so each row's horizontal sum is
 * computed once rather than three times. The block sum includes the cell itself; a live cell
 * with block sum n has n - 1 neighbours, so the rule is rewritten over block sums (see
 * `SlicedRule`) instead of subtracting.
 *
 * Every cell position is read through the wrap, so on lattices 1 or 2 cells wide or high a
 * neighbour position that lands on the same cell (or the cell itself) counts once per
 * position, as in the reference engine.
 */

/**
 * The rule as a sum of block-sum equalities, split by whether the cell must be live, dead or
 * either. Each term is four xor masks (one per sum bit plane): `plane ^ mask` is all ones
 * where the plane's bit equals the term's bit, so the and of the four is the equality mask.
 */
export interface SlicedRule {
  either: Int32Array;
  liveOnly: Int32Array;
  deadOnly: Int32Array;
}

export function sliceRule(rule: LifeRule): SlicedRule {
  const either: number[] = [];
  const liveOnly: number[] = [];
  const deadOnly: number[] = [];
  for (let sum = 0; sum <= 9; sum += 1) {
    // A dead cell never has block sum 9 and a live one never 0: those halves are free, and
    // copying the other half there turns a one-sided term into a cheaper two-sided one.
    const live = sum === 0 ? rule.birth[0] === true : rule.survive[sum - 1] === true;
    const dead = sum === 9 ? live : rule.birth[sum] === true;
    const masks = [0, 1, 2, 3].map((bit) => ((sum >> bit) & 1 ? 0 : -1));
    if (live && dead) either.push(...masks);
    else if (live) liveOnly.push(...masks);
    else if (dead) deadOnly.push(...masks);
  }
  return {
    either: Int32Array.from(either),
    liveOnly: Int32Array.from(liveOnly),
    deadOnly: Int32Array.from(deadOnly),
  };
}

/** Scratch the step needs: the two bit planes of every row's horizontal sum. */
export interface RowSums {
  low: Int32Array;
  high: Int32Array;
}

export function rowSumsFor(layout: BitRowLayout): RowSums {
  const size = layout.wordsPerRow * layout.height;
  return { low: new Int32Array(size), high: new Int32Array(size) };
}

/** Writes the next generation of `src` into `dst` (distinct arrays of the layout's size). */
export function stepBitSliced(
  layout: BitRowLayout,
  rule: SlicedRule,
  src: Int32Array,
  dst: Int32Array,
  sums: RowSums,
): void {
  addRowTriples(layout, src, sums);
  // Most rules in use (Life, HighLife, Seeds, ...) need at most one term of each kind; the
  // term loops cost about a quarter of the speed, so those rules get them unrolled.
  if (rule.either.length <= 4 && rule.liveOnly.length <= 4 && rule.deadOnly.length <= 4)
    addBlocksAndApplyOneTermEach(layout, rule, src, dst, sums);
  else addBlocksAndApply(layout, rule, src, dst, sums);
}

/** Pass 1: every row's west + centre + east sum, as bit planes `low` and `high`. */
function addRowTriples(layout: BitRowLayout, src: Int32Array, sums: RowSums): void {
  const { width, height, wordsPerRow: n } = layout;
  // Bit of the last cell within the row's last word (counted from the least significant bit).
  const seam = 32 * n - width;
  const { low, high } = sums;
  for (let y = 0; y < height; y += 1) {
    const base = y * n;
    const first = src[base];
    const last = src[base + n - 1];
    // The cell west of each word's first cell: for the first word, the row's last cell.
    let previous = (last >>> seam) & 1;
    for (let k = 0; k < n - 1; k += 1) {
      const cell = src[base + k];
      const west = (cell >>> 1) | (previous << 31);
      const east = (cell << 1) | (src[base + k + 1] >>> 31);
      const partial = west ^ cell;
      low[base + k] = partial ^ east;
      high[base + k] = (west & cell) | (partial & east);
      previous = cell & 1;
    }
    const west = (last >>> 1) | (previous << 31);
    const east = (last << 1) | ((first >>> 31) << seam);
    const partial = west ^ last;
    low[base + n - 1] = partial ^ east;
    high[base + n - 1] = (west & last) | (partial & east);
  }
}

/** Pass 2: the 3×3 block sums from three rows' horizontal sums, then the rule. */
function addBlocksAndApply(
  layout: BitRowLayout,
  rule: SlicedRule,
  src: Int32Array,
  dst: Int32Array,
  sums: RowSums,
): void {
  const { height, wordsPerRow: n, lastWordMask } = layout;
  const { low, high } = sums;
  const { either, liveOnly, deadOnly } = rule;
  for (let y = 0; y < height; y += 1) {
    const above = ((y + height - 1) % height) * n;
    const row = y * n;
    const below = ((y + 1) % height) * n;
    for (let k = 0; k < n; k += 1) {
      const a0 = low[above + k];
      const a1 = high[above + k];
      const b0 = low[row + k];
      const b1 = high[row + k];
      const c0 = low[below + k];
      const c1 = high[below + k];
      // Weight 1: a full adder; its carry joins the weight-2 column.
      const x0 = a0 ^ b0;
      const s0 = x0 ^ c0;
      const carry0 = (a0 & b0) | (x0 & c0);
      // Weight 2: three sum bits and that carry (at most 4, so two weight-4 carries).
      const x1 = a1 ^ b1;
      const t1 = x1 ^ c1;
      const carry1 = (a1 & b1) | (x1 & c1);
      const s1 = t1 ^ carry0;
      const carry2 = t1 & carry0;
      const s2 = carry1 ^ carry2;
      const s3 = carry1 & carry2;

      let any = 0;
      for (let i = 0; i < either.length; i += 4) {
        any |=
          (s0 ^ either[i]) & (s1 ^ either[i + 1]) & (s2 ^ either[i + 2]) & (s3 ^ either[i + 3]);
      }
      let live = 0;
      for (let i = 0; i < liveOnly.length; i += 4) {
        live |=
          (s0 ^ liveOnly[i]) &
          (s1 ^ liveOnly[i + 1]) &
          (s2 ^ liveOnly[i + 2]) &
          (s3 ^ liveOnly[i + 3]);
      }
      let dead = 0;
      for (let i = 0; i < deadOnly.length; i += 4) {
        dead |=
          (s0 ^ deadOnly[i]) &
          (s1 ^ deadOnly[i + 1]) &
          (s2 ^ deadOnly[i + 2]) &
          (s3 ^ deadOnly[i + 3]);
      }
      const cell = src[row + k];
      dst[row + k] = any | (cell & live) | (~cell & dead);
    }
    dst[row + n - 1] &= lastWordMask;
  }
}

/**
 * `addBlocksAndApply` for at most one term of each kind, the masks held in locals. A missing
 * term gets masks 0, i.e. "block sum 15", which never occurs (sums are 0..9): it adds nothing.
 */
function addBlocksAndApplyOneTermEach(
  layout: BitRowLayout,
  rule: SlicedRule,
  src: Int32Array,
  dst: Int32Array,
  sums: RowSums,
): void {
  const { height, wordsPerRow: n, lastWordMask } = layout;
  const { low, high } = sums;
  const [e0, e1, e2, e3] = termOrNever(rule.either);
  const [l0, l1, l2, l3] = termOrNever(rule.liveOnly);
  const [d0, d1, d2, d3] = termOrNever(rule.deadOnly);
  for (let y = 0; y < height; y += 1) {
    const above = ((y + height - 1) % height) * n;
    const row = y * n;
    const below = ((y + 1) % height) * n;
    for (let k = 0; k < n; k += 1) {
      const a0 = low[above + k];
      const a1 = high[above + k];
      const b0 = low[row + k];
      const b1 = high[row + k];
      const c0 = low[below + k];
      const c1 = high[below + k];
      // The same adder as in `addBlocksAndApply`.
      const x0 = a0 ^ b0;
      const s0 = x0 ^ c0;
      const carry0 = (a0 & b0) | (x0 & c0);
      const x1 = a1 ^ b1;
      const t1 = x1 ^ c1;
      const carry1 = (a1 & b1) | (x1 & c1);
      const s1 = t1 ^ carry0;
      const carry2 = t1 & carry0;
      const s2 = carry1 ^ carry2;
      const s3 = carry1 & carry2;
      const cell = src[row + k];
      dst[row + k] =
        ((s0 ^ e0) & (s1 ^ e1) & (s2 ^ e2) & (s3 ^ e3)) |
        (cell & (s0 ^ l0) & (s1 ^ l1) & (s2 ^ l2) & (s3 ^ l3)) |
        (~cell & (s0 ^ d0) & (s1 ^ d1) & (s2 ^ d2) & (s3 ^ d3));
    }
    dst[row + n - 1] &= lastWordMask;
  }
}

function termOrNever(terms: Int32Array): [number, number, number, number] {
  return terms.length === 4 ? [terms[0], terms[1], terms[2], terms[3]] : [0, 0, 0, 0];
}
