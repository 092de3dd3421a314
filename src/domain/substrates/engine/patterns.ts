import { NAMED_PATTERNS, PATTERN_NAMES } from './pattern-library';
import {
  looksLikePicture,
  parsePicture,
  parseRle,
  PatternError,
  type Pattern,
  type PatternBounds,
} from './pattern-text';

export { PATTERN_NAMES } from './pattern-library';
export { PatternError, type Pattern, type PatternBounds } from './pattern-text';

/**
 * The default bounds: the widest envelope's ring (65 536 cells) and at most 2^20 live cells,
 * so a short RLE text with huge run counts fails fast instead of filling memory.
 */
export const DEFAULT_PATTERN_BOUNDS: PatternBounds = {
  maxWidth: 65_536,
  maxHeight: 65_536,
  maxLiveCells: 1 << 20,
};

const NAME_SHAPE = /^[a-z0-9][a-z0-9-]*$/;

/**
 * A pattern from a name (`glider`, case-insensitive), a plain picture (`.` and `O`/`#`/`*`
 * rows) or RLE text. Throws `PatternError` naming the problem; an unknown name lists the
 * known ones.
 */
export function parsePattern(
  textOrName: string,
  bounds: PatternBounds = DEFAULT_PATTERN_BOUNDS,
): Pattern {
  const trimmed = textOrName.trim();
  if (trimmed === '') throw new PatternError('pattern is empty: give a name, RLE or a picture');
  const named = NAMED_PATTERNS[trimmed.toLowerCase()];
  if (named !== undefined) return parseRle(named, bounds);
  if (looksLikePicture(trimmed)) return parsePicture(trimmed, bounds);
  // A lone word that cannot be RLE (which uses only digits, b, o, $ and !) is most likely a
  // mistyped name, and saying so helps more than an RLE syntax error.
  if (NAME_SHAPE.test(trimmed.toLowerCase()) && /[^bo0-9]/.test(trimmed))
    throw new PatternError(
      `unknown pattern name ${JSON.stringify(trimmed)}; known: ${PATTERN_NAMES.join(', ')}`,
    );
  return parseRle(trimmed, bounds);
}

/**
 * The pattern's cells on a `width` x `height` lattice, one byte per cell, row-major, with the
 * pattern's top-left at (floor((width - w) / 2), floor((height - h) / 2)).
 */
export function placePattern(pattern: Pattern, width: number, height: number): Uint8Array {
  if (pattern.width > width || pattern.height > height)
    throw new PatternError(
      `pattern is ${pattern.width} x ${pattern.height}, larger than the ${width} x ${height} lattice`,
    );
  const left = Math.floor((width - pattern.width) / 2);
  const top = Math.floor((height - pattern.height) / 2);
  const cells = new Uint8Array(width * height);
  for (const [x, y] of pattern.cells) cells[(top + y) * width + left + x] = 1;
  return cells;
}
