/**
 * Starts arrive as one byte per cell, row-major, non-zero live: simple to build from a PRNG,
 * a pattern or a snapshot, and the same for every engine.
 */

/** The start's cells, after checking there is one per lattice position. */
export function checkedCells(start: {
  width: number;
  height: number;
  cells: Uint8Array;
}): Uint8Array {
  if (start.cells.length !== start.width * start.height)
    throw new RangeError(
      `${start.cells.length} cells given for a ${start.width}x${start.height} lattice`,
    );
  return start.cells;
}
