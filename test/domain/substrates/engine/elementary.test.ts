import {
  createSubstrate,
  ElementaryRing,
  parseElementaryRule,
  randomCells,
  type Substrate,
} from '../../../../src/domain/substrates/engine';

const row = (substrate: Substrate) =>
  substrate.window({ x: 0, y: 0, width: substrate.width, height: 1 })[0];

/** The definition, cell by cell: bit (left << 2 | centre << 1 | right) of the rule number. */
function naiveStep(cells: number[], rule: number): number[] {
  const n = cells.length;
  return cells.map((centre, x) => {
    const pattern = (cells[(x + n - 1) % n] << 2) | (centre << 1) | cells[(x + 1) % n];
    return (rule >> pattern) & 1;
  });
}

describe('elementary automata', () => {
  it('rule 30 from `single` matches the hand-checked rows', () => {
    const ring = createSubstrate('elementary-1d', { width: 11, rule: 30, pattern: 'single' });
    const rows = [row(ring)];
    for (let i = 0; i < 5; i += 1) {
      ring.step();
      rows.push(row(ring));
    }
    expect(rows).toEqual([
      '.....#.....',
      '....###....',
      '...##..#...',
      '..##.####..',
      '.##..#...#.',
      '##.####.###',
    ]);
    expect(ring.rule).toBe('W30');
    expect(ring.height).toBe(1);
  });

  it('rule 90 from `single` draws the Sierpinski triangle (Pascal mod 2)', () => {
    const width = 65;
    const centre = 32;
    const ring = createSubstrate('elementary-1d', { width, rule: 90, pattern: 'single' });
    for (let t = 0; t <= 32; t += 1) {
      // Cell centre + d is live iff C(t, (t + d) / 2) is odd: by Lucas, iff the halves share no bit.
      const expected = Array.from({ length: width }, (_, x) => {
        const d = x - centre;
        if (Math.abs(d) > t || (t + d) % 2 !== 0) return '.';
        return (((t + d) / 2) & ((t - d) / 2)) === 0 ? '#' : '.';
      }).join('');
      expect(row(ring)).toBe(expected);
      ring.step();
    }
  });

  it.each([1, 2, 3, 31, 32, 33, 64, 100, 257])(
    'every rule matches the naive definition on a ring of %d cells',
    (width) => {
      for (let rule = 0; rule < 256; rule += 1) {
        const start = randomCells(width, 1, rule * 1000 + width, 0.5);
        const ring = new ElementaryRing({ width, rule: parseElementaryRule(rule), cells: start });
        let cells = Array.from(start);
        for (let t = 0; t < 40; t += 1) {
          ring.step();
          cells = naiveStep(cells, rule);
          const expected = cells.map((cell) => (cell ? '#' : '.')).join('');
          if (row(ring) !== expected)
            throw new Error(`rule ${rule} width ${width}: differs at tick ${t + 1}`);
        }
      }
    },
  );

  it('rule 110 matches the naive definition for 500 ticks on a 300-cell ring', () => {
    const start = randomCells(300, 1, 110, 0.5);
    const ring = new ElementaryRing({ width: 300, rule: parseElementaryRule(110), cells: start });
    let cells = Array.from(start);
    for (let t = 0; t < 500; t += 1) {
      ring.step();
      cells = naiveStep(cells, 110);
    }
    expect(ring.liveCells()).toEqual(cells.flatMap((cell, x) => (cell ? [[x, 0]] : [])));
    expect(ring.tick).toBe(500);
  });

  it('clones independently', () => {
    const ring = createSubstrate('elementary-1d', { width: 50, rule: 110, seed: 4 });
    const copy = ring.clone();
    copy.step(7);
    expect(ring.tick).toBe(0);
    ring.step(7);
    expect(copy.digest()).toBe(ring.digest());
    expect(copy.tick).toBe(7);
  });

  it('reads wrap around the ring and every y is the one row', () => {
    const ring = createSubstrate('elementary-1d', { width: 10, rule: 30, pattern: 'single' });
    expect(ring.get(4, 0)).toBe(true);
    expect(ring.get(14, 3)).toBe(true);
    expect(ring.get(-6, -1)).toBe(true);
    expect(ring.boundingBox()).toEqual({ x: 4, y: 0, width: 1, height: 1 });
    expect(ring.window({ x: 8, y: 0, width: 4, height: 2 })).toEqual(['....', '....']);
    expect(ring.snapshot()).toEqual(Uint8Array.of(0b00001000, 0));
  });
});
