import type { Box, CellGrid } from './types';

/** Rows of a window onto a torus, `#` live and `.` dead; the box may wrap or exceed the grid. */
export function windowRows(grid: CellGrid, box: Box): string[] {
  for (const key of ['x', 'y', 'width', 'height'] as const) {
    if (!Number.isSafeInteger(box[key]))
      throw new RangeError(`window ${key} ${box[key]} is not an integer`);
  }
  if (box.width < 0 || box.height < 0)
    throw new RangeError(`window ${box.width}x${box.height} has a negative side`);
  const rows: string[] = [];
  for (let dy = 0; dy < box.height; dy += 1) {
    let row = '';
    for (let dx = 0; dx < box.width; dx += 1) row += grid.get(box.x + dx, box.y + dy) ? '#' : '.';
    rows.push(row);
  }
  return rows;
}

/** `value` wrapped into 0..size-1 (also for negative values). */
export function wrapIndex(value: number, size: number): number {
  const r = value % size;
  return r < 0 ? r + size : r;
}
