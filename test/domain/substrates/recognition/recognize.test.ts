import {
  MOTIF_DEFINITIONS,
  STANDARD_RECOGNIZER_PACKS,
  countByMotif,
  recognize,
  type MotifMatch,
} from '../../../../src/domain/substrates/recognition';
import type { CellGrid } from '../../../../src/domain/substrates/engine/types';
import { liveCellsGrid, pictureCells, randomSoup, stepLife } from '../live-cells-grid';

type Picture = string[];
const mirrorX = (rows: Picture): Picture => rows.map((row) => [...row].reverse().join(''));
const mirrorY = (rows: Picture): Picture => [...rows].reverse();
const transpose = (rows: Picture): Picture =>
  [...rows[0]].map((_, x) => rows.map((row) => row[x]).join(''));
/** All eight orientations of a picture (some may coincide). */
const orientationsOf = (rows: Picture): Picture[] => {
  const flips = [rows, mirrorX(rows), mirrorY(rows), mirrorY(mirrorX(rows))];
  return [...flips, ...flips.map(transpose)];
};
const onGrid = (rows: Picture, x: number, y: number, size = 16): CellGrid =>
  liveCellsGrid(size, size, pictureCells(rows, x, y));

const STILL_LIFES: Record<string, Picture> = {
  block: ['OO', 'OO'],
  beehive: ['.OO.', 'O..O', '.OO.'],
  loaf: ['.OO.', 'O..O', '.O.O', '..O.'],
  boat: ['OO.', 'O.O', '.O.'],
  tub: ['.O.', 'O.O', '.O.'],
};
const TOAD: Picture[] = [
  ['.OOO', 'OOO.'],
  ['..O.', 'O..O', 'O..O', '.O..'],
];
const BEACON: Picture[] = [
  ['OO..', 'OO..', '..OO', '..OO'],
  ['OO..', 'O...', '...O', '..OO'],
];
/** The SE glider, phase 0 = `bob$2bo$3o!`, each next picture one generation later. */
const GLIDER_SE: Picture[] = [
  ['.O.', '..O', 'OOO'],
  ['O.O', '.OO', '.O.'],
  ['..O', 'O.O', '.OO'],
  ['O..', '.OO', 'OO.'],
];

describe('recognize', () => {
  describe.each(Object.entries(STILL_LIFES))('%s', (motif, picture) => {
    it.each(orientationsOf(picture).map((rows, i) => [i, rows] as const))(
      'is found in orientation %i',
      (_i, rows) => {
        expect(recognize(onGrid(rows, 5, 7))).toEqual([{ motif, class: 'still_life', x: 5, y: 7 }]);
      },
    );
  });

  it.each(orientationsOf(['OOO']).map((rows) => [rows.length === 1 ? 0 : 1, rows] as const))(
    'blinker: phase %i (0 horizontal, 1 vertical)',
    (phase, rows) => {
      expect(recognize(onGrid(rows, 3, 4))).toEqual([
        { motif: 'blinker', class: 'oscillator', x: 3, y: 4, phase },
      ]);
    },
  );

  describe.each([
    ['toad', TOAD],
    ['beacon', BEACON],
  ] as const)('%s', (motif, phases) => {
    const cases = phases.flatMap((picture, phase) =>
      orientationsOf(picture).map((rows, i) => [phase, i, rows] as const),
    );
    it.each(cases)('phase %i is found in orientation %i', (phase, _i, rows) => {
      expect(recognize(onGrid(rows, 6, 2))).toEqual([
        { motif, class: 'oscillator', x: 6, y: 2, phase },
      ]);
    });
  });

  describe('glider', () => {
    const headings = [
      ['SE', (rows: Picture) => rows],
      ['SW', mirrorX],
      ['NE', mirrorY],
      ['NW', (rows: Picture) => mirrorY(mirrorX(rows))],
    ] as const;
    const cases = headings.flatMap(([heading, orient]) =>
      GLIDER_SE.map((picture, phase) => [heading, phase, orient(picture)] as const),
    );

    it.each(cases)('heading %s phase %i is found', (heading, phase, rows) => {
      expect(recognize(onGrid(rows, 9, 1))).toEqual([
        { motif: 'glider', class: 'spaceship', x: 9, y: 1, phase, heading },
      ]);
    });

    const allOrientations = GLIDER_SE.flatMap((picture) => orientationsOf(picture));
    it.each(allOrientations.map((rows, i) => [i, rows] as const))(
      'orientation %i: the next generation is the next phase, and it moves along its heading',
      (_i, rows) => {
        let grid = onGrid(rows, 6, 6);
        const [first] = recognize(grid);
        expect(first).toMatchObject({ motif: 'glider', heading: expect.any(String) });
        for (let generation = 1; generation <= 4; generation++) {
          grid = stepLife(grid);
          const [match] = recognize(grid);
          expect(match).toMatchObject({
            heading: first.heading,
            phase: (first.phase! + generation) % 4,
          });
          if (generation === 4) {
            const dx = first.heading!.endsWith('E') ? 1 : -1;
            const dy = first.heading!.startsWith('S') ? 1 : -1;
            expect([match.x, match.y]).toEqual([first.x + dx, first.y + dy]);
          }
        }
      },
    );
  });

  it('finds several motifs on one grid, in row-major order of their first cell', () => {
    const cells = [
      ...pictureCells(STILL_LIFES['block'], 1, 1),
      ...pictureCells(STILL_LIFES['beehive'], 10, 1),
      ...pictureCells(['OOO'], 20, 2),
      ...pictureCells(TOAD[1], 1, 10),
      ...pictureCells(BEACON[1], 10, 10),
      ...pictureCells(mirrorY(GLIDER_SE[2]), 20, 10),
      ...pictureCells(STILL_LIFES['tub'], 1, 20),
    ];
    const matches = recognize(liveCellsGrid(32, 32, cells));
    expect(matches).toEqual([
      { motif: 'block', class: 'still_life', x: 1, y: 1 },
      { motif: 'beehive', class: 'still_life', x: 10, y: 1 },
      { motif: 'blinker', class: 'oscillator', x: 20, y: 2, phase: 0 },
      { motif: 'toad', class: 'oscillator', x: 1, y: 10, phase: 1 },
      { motif: 'beacon', class: 'oscillator', x: 10, y: 10, phase: 1 },
      { motif: 'glider', class: 'spaceship', x: 20, y: 10, phase: 2, heading: 'NE' },
      { motif: 'tub', class: 'still_life', x: 1, y: 20 },
    ]);
    expect(countByMotif(matches)).toEqual({
      block: 1,
      beehive: 1,
      blinker: 1,
      toad: 1,
      beacon: 1,
      glider: 1,
      tub: 1,
    });
  });

  it.each([
    ['beside it', [6, 5]],
    ['at a corner', [3, 3]],
    ['on the far corner of the ring', [6, 6]],
  ] as const)('does not report a block with a live cell %s', (_where, extra) => {
    const grid = liveCellsGrid(16, 16, [...pictureCells(STILL_LIFES['block'], 4, 4), [...extra]]);
    expect(recognize(grid)).toEqual([]);
  });

  it('does not report a block inside a bigger blob', () => {
    expect(recognize(onGrid(['OOO', 'OOO', 'OOO'], 4, 4))).toEqual([]);
  });

  it('reports a beacon with its blocks touching at a corner as one beacon, not two blocks', () => {
    expect(recognize(onGrid(BEACON[0], 4, 4))).toEqual([
      { motif: 'beacon', class: 'oscillator', x: 4, y: 4, phase: 0 },
    ]);
  });

  it('finds patterns across the torus edge, at their wrapped top-left', () => {
    const block = liveCellsGrid(10, 8, pictureCells(STILL_LIFES['block'], 9, 7));
    expect(recognize(block)).toEqual([{ motif: 'block', class: 'still_life', x: 9, y: 7 }]);
    const glider = liveCellsGrid(12, 12, pictureCells(GLIDER_SE[0], 10, 11));
    expect(recognize(glider)).toEqual([
      { motif: 'glider', class: 'spaceship', x: 10, y: 11, phase: 0, heading: 'SE' },
    ]);
  });

  it('finds nothing when the lattice is too small for the ring to be distinct', () => {
    expect(recognize(liveCellsGrid(3, 3, pictureCells(['OO', 'OO'])))).toEqual([]);
    expect(recognize(liveCellsGrid(8, 1, pictureCells(['.OOO'])))).toEqual([]);
  });

  it('gives [] for an empty grid', () => {
    expect(recognize(liveCellsGrid(64, 64, []))).toEqual([]);
  });

  it('limits the search to the motifs named (a pack)', () => {
    const grid = liveCellsGrid(32, 32, [
      ...pictureCells(STILL_LIFES['boat'], 2, 2),
      ...pictureCells(GLIDER_SE[1], 12, 12),
    ]);
    const pack = (id: string): string[] =>
      STANDARD_RECOGNIZER_PACKS.find((candidate) => candidate.recognizer_id === id)!.motifs;
    expect(recognize(grid, pack('life-still-lifes')).map((m) => m.motif)).toEqual(['boat']);
    expect(recognize(grid, pack('life-spaceships')).map((m) => m.motif)).toEqual(['glider']);
    expect(recognize(grid, [])).toEqual([]);
    expect(() => recognize(grid, ['block', 'pulsar'])).toThrow(/pulsar/);
  });

  /** True when the live cells around a match are exactly one orientation of its phase. */
  const isExactMatch = (grid: CellGrid, match: MotifMatch): boolean => {
    const definition = MOTIF_DEFINITIONS.find((candidate) => candidate.motif === match.motif)!;
    const cells = definition.phases[match.phase ?? 0];
    const picture: Picture = [];
    for (const [x, y] of cells) {
      while (picture.length <= y) picture.push('');
      picture[y] = picture[y].padEnd(x, '.') + 'O';
    }
    const width = Math.max(...picture.map((row) => row.length));
    const padded = picture.map((row) => row.padEnd(width, '.'));
    return orientationsOf(padded).some((rows) => {
      for (let dy = -1; dy <= rows.length; dy++)
        for (let dx = -1; dx <= rows[0].length; dx++) {
          const expected = rows[dy]?.[dx] === 'O';
          if (grid.get(match.x + dx, match.y + dy) !== expected) return false;
        }
      return true;
    });
  };

  it('reports only exact, disjoint matches on a 256 × 256 soup', () => {
    const grid = randomSoup(256, 256, 42, 0.5);
    const matches = recognize(grid);
    for (const match of matches) expect(isExactMatch(grid, match)).toBe(true);
    // A sparse soup after some generations has plenty of isolated debris to find.
    let settled: CellGrid = randomSoup(64, 64, 7, 0.3);
    for (let i = 0; i < 60; i++) settled = stepLife(settled);
    const debris = recognize(settled);
    for (const match of debris) expect(isExactMatch(settled, match)).toBe(true);
    const seen = new Set<string>();
    for (const match of debris) {
      const key = `${match.x},${match.y}`;
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
  });

  // How long it takes is a benchmark's question, not a test's (a loaded machine fails a
  // timed assertion): here, a soup of the largest size finishes and finds only exact matches.
  it('recognizes a 1024 × 1024 soup with exact matches only', () => {
    const grid = randomSoup(1024, 1024, 1, 0.5);
    const found = recognize(grid);
    for (const match of found) expect(isExactMatch(grid, match)).toBe(true);
  });
});
