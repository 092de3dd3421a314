/** The substrate engine's public API. */
export type { Box, CellGrid, EngineParams, ScaffoldKind, Substrate } from './types';
export {
  canonicalRule,
  parseElementaryRule,
  parseLifeRule,
  RuleError,
  type ElementaryRule,
  type LifeRule,
} from './rules';
export { MAX_SEED, mulberry32, randomCells } from './prng';
export {
  DEFAULT_PATTERN_BOUNDS,
  parsePattern,
  PATTERN_NAMES,
  PatternError,
  placePattern,
  type Pattern,
  type PatternBounds,
} from './patterns';
export {
  packSnapshot,
  SnapshotError,
  snapshotLength,
  stateDigest,
  unpackSnapshot,
} from './snapshot';
export { LifeLattice } from './life-lattice';
export { ReferenceLattice, type LatticeStart } from './reference-lattice';
export { ElementaryRing, type RingStart } from './elementary';
export { EngineParamsError, latticeSize, startingCells } from './engine-params';
export { createSubstrate, restoreSubstrate } from './create';
export { detectPeriod, type PeriodFound } from './period';
