/**
 * Mulberry32 (Tommy Ettinger, public domain): a 32-bit state advanced by a Weyl increment and
 * scrambled by two multiply-xorshift rounds. Every operation is an exact 32-bit integer
 * operation (`Math.imul`, shifts, xor, and one sum of two int32s that a double holds
 * exactly), so a seed gives the same sequence on every machine and Node version; no
 * `Math.random`, no floating-point rounding. Period 2^32, which is plenty for start states.
 *
 * One step, with `state` a uint32:
 *   state = state + 0x6D2B79F5 (mod 2^32)
 *   t = imul(state ^ (state >>> 15), state | 1)
 *   t = t ^ (t + imul(t ^ (t >>> 7), t | 61))
 *   draw = (t ^ (t >>> 14)) as uint32
 */

/** Largest accepted seed: seeds are uint32. */
export const MAX_SEED = 0xffffffff;

/** A generator of uint32 draws (0..2^32-1) for `seed` (an integer 0..2^32-1). */
export function mulberry32(seed: number): () => number {
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED)
    throw new RangeError(`seed ${seed} is not an integer 0..${MAX_SEED}`);
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

const TWO_POW_32 = 0x100000000;

/**
 * A random start: one draw per cell in row-major order (y, then x), the cell live when
 * `draw / 2^32 < density`. The quotient is exact in a double, so the comparison is too.
 * Returns one byte per cell (1 live, 0 dead).
 */
export function randomCells(
  width: number,
  height: number,
  seed: number,
  density: number,
): Uint8Array {
  if (!Number.isFinite(density) || density < 0 || density > 1)
    throw new RangeError(`density ${density} is not a number in 0..1`);
  mulberry32(seed); // validates the seed
  const cells = new Uint8Array(width * height);
  // draw / 2^32 < density ⇔ draw < density * 2^32: scaling by a power of two is exact.
  const threshold = density * TWO_POW_32;
  // mulberry32 inlined (a closure call per cell costs ~3× here); the tests pin its output.
  let state = seed | 0;
  for (let i = 0; i < cells.length; i += 1) {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    cells[i] = (t ^ (t >>> 14)) >>> 0 < threshold ? 1 : 0;
  }
  return cells;
}
