import type { Box, CellGrid } from '../engine/types';

/** A horizontal run of live cells, relative to the window it was read from. */
export interface CellRun {
  x: number;
  y: number;
  length: number;
}

/** The live cells inside `window` as maximal horizontal runs, row-major. */
export function cellRuns(grid: CellGrid, window: Box): CellRun[] {
  const runs: CellRun[] = [];
  let current: CellRun | undefined;
  // liveCells() is row-major, so a run continues exactly when the next cell is its right-hand
  // neighbour in the same row; on a sparse lattice this skips the dead cells entirely.
  for (const [cellX, cellY] of grid.liveCells()) {
    const x = cellX - window.x;
    const y = cellY - window.y;
    if (x < 0 || y < 0 || x >= window.width || y >= window.height) continue;
    if (current && current.y === y && current.x + current.length === x) current.length++;
    else runs.push((current = { x, y, length: 1 }));
  }
  return runs;
}
