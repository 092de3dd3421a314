import type { Cell, Heading } from './motif-types';

/** A rotation or reflection of the plane as the matrix `[[a, b], [c, d]]`. */
export interface Orientation {
  name: string;
  a: number;
  b: number;
  c: number;
  d: number;
}

/**
 * The eight symmetries of the square. Identity and the mirrors come first: an orientation that
 * repeats an earlier one is dropped, and listing mirrors before rotations means a glider
 * mirrored in x and/or y keeps the phase number of the glider it mirrors.
 */
export const ORIENTATIONS: readonly Orientation[] = [
  { name: 'identity', a: 1, b: 0, c: 0, d: 1 },
  { name: 'mirror-x', a: -1, b: 0, c: 0, d: 1 },
  { name: 'mirror-y', a: 1, b: 0, c: 0, d: -1 },
  { name: 'rotate-180', a: -1, b: 0, c: 0, d: -1 },
  { name: 'transpose', a: 0, b: 1, c: 1, d: 0 },
  { name: 'anti-transpose', a: 0, b: -1, c: -1, d: 0 },
  { name: 'rotate-90', a: 0, b: -1, c: 1, d: 0 },
  { name: 'rotate-270', a: 0, b: 1, c: -1, d: 0 },
];

/** The image of one point. */
export function orientPoint(orientation: Orientation, [x, y]: Cell): Cell {
  return [orientation.a * x + orientation.b * y, orientation.c * x + orientation.d * y];
}

/** Cells moved so the bounding box starts at (0, 0), sorted row-major. */
export function normalizeCells(cells: readonly Cell[]): Cell[] {
  const minX = Math.min(...cells.map(([x]) => x));
  const minY = Math.min(...cells.map(([, y]) => y));
  return cells
    .map(([x, y]): Cell => [x - minX, y - minY])
    .sort(([ax, ay], [bx, by]) => ay - by || ax - bx);
}

/** The image of a set of cells, normalised. */
export function orientCells(orientation: Orientation, cells: readonly Cell[]): Cell[] {
  return normalizeCells(cells.map((cell) => orientPoint(orientation, cell)));
}

/** A text key equal for two normalised cell lists exactly when they are the same shape. */
export function shapeKey(normalizedCells: readonly Cell[]): string {
  return normalizedCells.map(([x, y]) => `${x},${y}`).join(';');
}

/** The compass name of a diagonal direction (y grows downward). */
export function headingOf([dx, dy]: Cell): Heading {
  return `${dy > 0 ? 'S' : 'N'}${dx > 0 ? 'E' : 'W'}` as Heading;
}
