import { parsePattern, placePattern } from './patterns';
import { randomCells } from './prng';
import type { EngineParams, ScaffoldKind } from './types';

/** Engine parameters that cannot build a substrate; the message names the parameter. */
export class EngineParamsError extends Error {
  override readonly name = 'EngineParamsError';
}

/** The lattice's size: `elementary-1d` is always one row. */
export function latticeSize(
  scaffold: ScaffoldKind,
  params: EngineParams,
): { width: number; height: number } {
  const { width } = params;
  if (!Number.isSafeInteger(width) || width < 1)
    throw new EngineParamsError(`width ${width} is not a positive integer`);
  if (scaffold === 'elementary-1d') {
    if (params.height !== undefined && params.height !== 1)
      throw new EngineParamsError(`height ${params.height}: elementary-1d is one row (height 1)`);
    return { width, height: 1 };
  }
  const { height } = params;
  if (height === undefined) throw new EngineParamsError('height is required for life-lattice');
  if (!Number.isSafeInteger(height) || height < 1)
    throw new EngineParamsError(`height ${height} is not a positive integer`);
  return { width, height };
}

/**
 * The tick-0 cells, one byte per cell, row-major: a seeded random start (density default
 * 0.5) or a pattern at the centre; exactly one of `seed` and `pattern` must be given.
 */
export function startingCells(scaffold: ScaffoldKind, params: EngineParams): Uint8Array {
  const { width, height } = latticeSize(scaffold, params);
  if (params.seed !== undefined && params.pattern !== undefined)
    throw new EngineParamsError('give seed (a random start) or pattern, not both');
  if (params.seed !== undefined) {
    try {
      return randomCells(width, height, params.seed, params.density ?? 0.5);
    } catch (error) {
      throw new EngineParamsError((error as Error).message);
    }
  }
  if (params.pattern !== undefined)
    return placePattern(parsePattern(params.pattern), width, height);
  throw new EngineParamsError('no start: give seed (a random start) or pattern');
}
