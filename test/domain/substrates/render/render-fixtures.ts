import type { Box, CellGrid } from '../../../../src/domain/substrates/engine/types';
import type { RenderInput } from '../../../../src/domain/substrates/render';

/** A render input for a grid, with the bounding box worked out from its cells. */
export function renderInputFor(grid: CellGrid, overrides: Partial<RenderInput> = {}): RenderInput {
  const cells = grid.liveCells();
  return {
    deployment_id: 'dep_TEST',
    tick: 12,
    grid,
    population: cells.length,
    bounding_box: boundingBox(cells),
    digest: 'ab'.repeat(32),
    spec: {
      scaffold: 'life-lattice',
      params: { width: grid.width, height: grid.height, rule: 'B3/S23', pattern: 'glider' },
      ticks: 100,
    },
    manifest_sha256: 'cd'.repeat(32),
    stage: 'observing',
    ...overrides,
  };
}

function boundingBox(cells: Array<[number, number]>): Box | null {
  if (cells.length === 0) return null;
  const xs = cells.map(([x]) => x);
  const ys = cells.map(([, y]) => y);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x + 1, height: Math.max(...ys) - y + 1 };
}
