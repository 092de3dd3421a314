import {
  MOTIFS,
  MOTIF_DEFINITIONS,
  STANDARD_RECOGNIZER_PACKS,
} from '../../../../src/domain/substrates/recognition';
import { liveCellsGrid, stepLife, type TestCell } from '../live-cells-grid';

/** Cells moved so the bounding box starts at (0, 0), as a comparable string. */
const shape = (cells: readonly TestCell[]): string => {
  const minX = Math.min(...cells.map(([x]) => x));
  const minY = Math.min(...cells.map(([, y]) => y));
  return cells
    .map(([x, y]) => [x - minX, y - minY])
    .sort(([ax, ay], [bx, by]) => ay - by || ax - bx)
    .join(';');
};

describe('motif library', () => {
  it.each(MOTIF_DEFINITIONS.map((definition) => [definition.motif, definition] as const))(
    '%s: each phase is the B3/S23 successor of the one before',
    (_name, definition) => {
      definition.phases.forEach((cells, phase) => {
        const placed = cells.map(([x, y]): TestCell => [x + 4, y + 4]);
        const next = stepLife(liveCellsGrid(16, 16, placed)).liveCells();
        const expected = definition.phases[(phase + 1) % definition.phases.length];
        expect(shape(next)).toBe(shape(expected));
      });
    },
  );

  it('the glider travels SE: four generations move phase 0 by (+1, +1)', () => {
    const glider = MOTIF_DEFINITIONS.find((definition) => definition.motif === 'glider')!;
    let grid = liveCellsGrid(
      16,
      16,
      glider.phases[0].map(([x, y]): TestCell => [x + 4, y + 4]),
    );
    for (let i = 0; i < 4; i++) grid = stepLife(grid);
    expect(grid.liveCells()).toEqual(glider.phases[0].map(([x, y]) => [x + 5, y + 5]));
  });

  it('lists every motif with its class and period', () => {
    expect(MOTIFS).toEqual([
      { motif: 'block', class: 'still_life', period: 1 },
      { motif: 'beehive', class: 'still_life', period: 1 },
      { motif: 'loaf', class: 'still_life', period: 1 },
      { motif: 'boat', class: 'still_life', period: 1 },
      { motif: 'tub', class: 'still_life', period: 1 },
      { motif: 'blinker', class: 'oscillator', period: 2 },
      { motif: 'toad', class: 'oscillator', period: 2 },
      { motif: 'beacon', class: 'oscillator', period: 2 },
      { motif: 'glider', class: 'spaceship', period: 4 },
    ]);
  });

  it('has the standard recognizer packs', () => {
    const byId = Object.fromEntries(
      STANDARD_RECOGNIZER_PACKS.map((pack) => [pack.recognizer_id, pack]),
    );
    expect(Object.keys(byId)).toEqual(['life-standard', 'life-still-lifes', 'life-spaceships']);
    expect(byId['life-standard'].motifs).toEqual(MOTIFS.map((info) => info.motif));
    expect(byId['life-still-lifes'].motifs).toEqual(['block', 'beehive', 'loaf', 'boat', 'tub']);
    expect(byId['life-spaceships'].motifs).toEqual(['glider']);
    for (const pack of STANDARD_RECOGNIZER_PACKS) {
      expect(pack).toMatchObject({ version: '1', rule: 'B3/S23' });
      expect(pack.name).toEqual(expect.any(String));
      expect(pack.description).toEqual(expect.any(String));
    }
  });
});
