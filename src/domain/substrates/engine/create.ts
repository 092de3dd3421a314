import { ElementaryRing } from './elementary';
import { EngineParamsError, latticeSize, startingCells } from './engine-params';
import { LifeLattice } from './life-lattice';
import { parseElementaryRule, parseLifeRule, RuleError } from './rules';
import { bitRowLayout, wordsOfSnapshot } from './bit-rows';
import { checkSnapshot, unpackSnapshot } from './snapshot';
import type { EngineParams, ScaffoldKind, Substrate } from './types';

/** A substrate at tick 0, from a seeded random start or a pattern. */
export function createSubstrate(scaffold: ScaffoldKind, params: EngineParams): Substrate {
  return build(scaffold, params, startingCells(scaffold, params), 0);
}

/** A substrate at `tick` from its snapshot (`Substrate.snapshot()` bytes). */
export function restoreSubstrate(
  scaffold: ScaffoldKind,
  params: EngineParams,
  tick: number,
  snapshot: Uint8Array,
): Substrate {
  if (!Number.isSafeInteger(tick) || tick < 0)
    throw new EngineParamsError(`tick ${tick} is not a non-negative integer`);
  const { width, height } = latticeSize(scaffold, params);
  if (scaffold === 'life-lattice' && typeof params.rule === 'string') {
    checkSnapshot(width, height, snapshot);
    const words = wordsOfSnapshot(bitRowLayout(width, height), snapshot);
    const rule = parseLifeRule(params.rule);
    return new LifeLattice({ width, height, rule, cells: new Uint8Array(0), tick }, words);
  }
  return build(scaffold, params, unpackSnapshot(width, height, snapshot), tick);
}

function build(
  scaffold: ScaffoldKind,
  params: EngineParams,
  cells: Uint8Array,
  tick: number,
): Substrate {
  const { width, height } = latticeSize(scaffold, params);
  if (scaffold === 'elementary-1d')
    return new ElementaryRing({ width, rule: parseElementaryRule(params.rule), cells, tick });
  if (typeof params.rule !== 'string')
    throw new RuleError(`life rule must be B/S text like B3/S23, got the number ${params.rule}`);
  return new LifeLattice({ width, height, rule: parseLifeRule(params.rule), cells, tick });
}
