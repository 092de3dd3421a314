import type { CellGrid } from '../../../src/domain/substrates/engine/types';

/** A cell as `[x, y]`. */
export type TestCell = [number, number];

/** A torus grid holding exactly the given live cells (coordinates wrap), for tests. */
export function liveCellsGrid(width: number, height: number, cells: Iterable<TestCell>): CellGrid {
  const live = new Uint8Array(width * height);
  const index = (x: number, y: number): number =>
    (((y % height) + height) % height) * width + (((x % width) + width) % width);
  for (const [x, y] of cells) live[index(x, y)] = 1;
  return {
    width,
    height,
    get: (x, y) => live[index(x, y)] === 1,
    liveCells: () => {
      const out: Array<[number, number]> = [];
      for (let i = 0; i < live.length; i++)
        if (live[i]) out.push([i % width, Math.floor(i / width)]);
      return out;
    },
  };
}

/** Live cells of a picture of `O`/`#` (live) and `.` (dead) rows, moved by (x, y). */
export function pictureCells(rows: readonly string[], x = 0, y = 0): TestCell[] {
  const cells: TestCell[] = [];
  rows.forEach((row, dy) => {
    for (let dx = 0; dx < row.length; dx++)
      if (row[dx] === 'O' || row[dx] === '#') cells.push([x + dx, y + dy]);
  });
  return cells;
}

/** A seeded random soup: each cell live with probability `density` (mulberry32). */
export function randomSoup(width: number, height: number, seed: number, density = 0.5): CellGrid {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const cells: TestCell[] = [];
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) if (next() < density) cells.push([x, y]);
  return liveCellsGrid(width, height, cells);
}

/** One B3/S23 generation of a grid, as a new grid (a test oracle, not the engine). */
export function stepLife(grid: CellGrid): CellGrid {
  const next: TestCell[] = [];
  for (let y = 0; y < grid.height; y++) {
    for (let x = 0; x < grid.width; x++) {
      let neighbours = 0;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) if ((dx || dy) && grid.get(x + dx, y + dy)) neighbours++;
      if (neighbours === 3 || (neighbours === 2 && grid.get(x, y))) next.push([x, y]);
    }
  }
  return liveCellsGrid(grid.width, grid.height, next);
}
