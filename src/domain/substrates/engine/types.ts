/**
 * The contract between the substrate engine (stepping, patterns, digests), the recognizer
 * and renderers (which only read cells) and the substrate services.
 */

/** A rectangle of cells. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Read access to a grid of cells on a torus; a 1-D substrate is one row (`height` 1). */
export interface CellGrid {
  readonly width: number;
  readonly height: number;
  /** True when the cell is live; `x` and `y` wrap around (torus). */
  get(x: number, y: number): boolean;
  /** Every live cell as `[x, y]`, row-major (y, then x, ascending). */
  liveCells(): Array<[number, number]>;
}

/** The scaffolds (docs/substrates.md). */
export type ScaffoldKind = 'life-lattice' | 'elementary-1d';

/** The parameters an engine is built from (a validated spec's `params`, defaults filled in). */
export interface EngineParams {
  width: number;
  /** `life-lattice` only; `elementary-1d` is always one row. */
  height?: number;
  /** B/S notation (`B3/S23`) for `life-lattice`; 0..255 for `elementary-1d`. */
  rule: string | number;
  /** Random start: cell live when the PRNG draw (seeded by `seed`) is below `density`. */
  seed?: number;
  density?: number;
  /** Explicit start instead: a pattern name or RLE text, placed at the centre. */
  pattern?: string;
}

/** A running substrate: a state and its tick, stepped in place. */
export interface Substrate extends CellGrid {
  readonly scaffold: ScaffoldKind;
  /** Canonical rule text: `B3/S23` or `W110`. */
  readonly rule: string;
  readonly tick: number;
  /** Advances `ticks` (default 1) generations in place. */
  step(ticks?: number): void;
  population(): number;
  /** Smallest box (in 0..width-1 × 0..height-1, not wrap-aware) holding every live cell. */
  boundingBox(): Box | null;
  /** Rows of the window, `#` live and `.` dead; wraps around the torus. */
  window(box: Box): string[];
  /** sha256 (hex) of the canonical state: `${width}x${height}:` then `snapshot()`. */
  digest(): string;
  /** Canonical state bytes: each row packed MSB-first into ceil(width / 8) bytes. */
  snapshot(): Uint8Array;
  clone(): Substrate;
}
