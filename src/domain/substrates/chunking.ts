/**
 * How a deployment's run is cut into activities. Pure, so the workflow computes it too.
 *
 * A chunk is about 2^29 cell updates (well under a second of the fast engine), so progress
 * moves visibly, a worker lost mid-run costs at most one chunk, and any computed tick can
 * be reached from a snapshot with at most one chunk of work.
 */
export const CHUNK_CELL_UPDATES = 2 ** 29;

/** Digests per chunk that the determinism assay can replay to. */
const TRAIL_POINTS_PER_CHUNK = 32;

export interface ChunkPlan {
  /** Ticks per chunk; a snapshot is stored at every multiple (and at the last tick). */
  interval: number;
  /** A digest is recorded at every multiple of this many ticks. */
  trailStep: number;
}

export function chunkPlan(width: number, height: number, ticks: number): ChunkPlan {
  const perChunk = Math.floor(CHUNK_CELL_UPDATES / (width * height));
  const interval = Math.max(1, Math.min(perChunk, Math.max(ticks, 1)));
  return { interval, trailStep: Math.max(1, Math.floor(interval / TRAIL_POINTS_PER_CHUNK)) };
}
