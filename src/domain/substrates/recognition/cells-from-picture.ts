import type { Cell } from './motif-types';

/** The live cells of a picture drawn as rows of `O` (live) and `.` (dead), row-major. */
export function cellsFromPicture(rows: readonly string[]): Cell[] {
  const cells: Cell[] = [];
  rows.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) if (row[x] === 'O') cells.push([x, y]);
  });
  return cells;
}
