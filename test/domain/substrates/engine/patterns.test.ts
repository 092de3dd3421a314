import {
  parsePattern,
  PATTERN_NAMES,
  PatternError,
  placePattern,
} from '../../../../src/domain/substrates/engine';

const sorted = (cells: Array<[number, number]>) =>
  [...cells].sort(([ax, ay], [bx, by]) => ay - by || ax - bx);

describe('RLE', () => {
  it('reads a header, comments and runs', () => {
    const rle = '#N Glider\n#C heads south-east\nx = 3, y = 3, rule = B3/S23\nbob$2bo$3o!';
    expect(parsePattern(rle)).toEqual({
      width: 3,
      height: 3,
      cells: [
        [1, 0],
        [2, 1],
        [0, 2],
        [1, 2],
        [2, 2],
      ],
    });
  });

  it('reads without a header, sizing the pattern by its runs', () => {
    expect(parsePattern('bo$2bo$3o!')).toEqual(parsePattern('x = 3, y = 3\nbob$2bo$3o!'));
    expect(parsePattern('3o!')).toEqual({
      width: 3,
      height: 1,
      cells: [
        [0, 0],
        [1, 0],
        [2, 0],
      ],
    });
  });

  it('takes multi-digit counts, counted row ends, line breaks and a missing `!`', () => {
    const pattern = parsePattern('x = 12, y = 4\n10b\n2o3$\n12o');
    expect(pattern.width).toBe(12);
    expect(pattern.height).toBe(4);
    expect(sorted(pattern.cells)).toEqual([
      [10, 0],
      [11, 0],
      ...Array.from({ length: 12 }, (_, x): [number, number] => [x, 3]),
    ]);
  });

  it('keeps the header box when it is larger than the cells', () => {
    expect(parsePattern('x = 5, y = 4\no!')).toEqual({ width: 5, height: 4, cells: [[0, 0]] });
  });

  it('ignores what follows `!`', () => {
    expect(parsePattern('2o! trailing notes $$ zzz').cells).toHaveLength(2);
  });

  it.each([
    ['bob$2bz$3o!', /line 1, column 7: "z" is not a cell tag/],
    ['x = 3, y = 3\nbob\n$2bo$3o$0o!', /line 3, column 10: run count 0 before "o"/],
    ['bob$2bo$3o3', /ends with the run count 3/],
    ['x = 2, y = 2\n3o!', /row 0 runs to x = 3 past the header's x = 2, y = 2/],
    ['x = 2, y = 2\no$o$o!', /row 2 is past the header's x = 2, y = 2/],
    ['x = 3, y = three\n3o!', /y = three is not a whole number/],
    ['x = 3\n3o!', /y = \(missing\) is not a whole number/],
    ['x = 3 y = 3\n3o!', /"x = 3 y = 3" is not key = value/],
    ['x = 0, y = 0\n!', /pattern is empty/],
    ['!', /pattern is empty/],
    ['1234567890o!', /run count 1234567890… is too large/],
  ])('rejects %j naming the problem', (text, message) => {
    expect(() => parsePattern(text)).toThrow(PatternError);
    expect(() => parsePattern(text)).toThrow(message);
  });

  it('refuses runs past the bounds before building them', () => {
    expect(() => parsePattern('99999999o!')).toThrow(/past the largest pattern/);
    expect(() => parsePattern('4o$4o!', { maxWidth: 10, maxHeight: 10, maxLiveCells: 7 })).toThrow(
      /more than 7 live cells/,
    );
  });
});

describe('plain pictures', () => {
  it.each([
    ['.O.\n..O\nOOO', 'O'],
    ['.#.\n..#\n###', '#'],
    ['.*.\n..*\n***', '*'],
    ['!Name: Glider\n!\n.O.\n..O\nOOO\n', 'O'],
  ])('reads %j as the glider', (text) => {
    expect(parsePattern(text)).toEqual(parsePattern('glider'));
  });

  it('pads short rows and keeps inner blank lines as empty rows', () => {
    expect(parsePattern('O\n\n..O')).toEqual({
      width: 3,
      height: 3,
      cells: [
        [0, 0],
        [2, 2],
      ],
    });
  });
});

describe('names', () => {
  it('knows the required patterns', () => {
    for (const name of [
      'glider',
      'blinker',
      'toad',
      'beacon',
      'block',
      'beehive',
      'loaf',
      'boat',
      'tub',
      'r-pentomino',
      'lwss',
      'gosper-glider-gun',
      'acorn',
      'diehard',
      'single',
    ]) {
      expect(PATTERN_NAMES).toContain(name);
    }
  });

  it.each([
    ['glider', 3, 3, 5],
    ['lwss', 5, 4, 9],
    ['gosper-glider-gun', 36, 9, 36],
    ['acorn', 7, 3, 7],
    ['diehard', 8, 3, 7],
    ['r-pentomino', 3, 3, 5],
    ['single', 1, 1, 1],
  ])('%s is %d x %d with %d live cells', (name, width, height, live) => {
    const pattern = parsePattern(name);
    expect([pattern.width, pattern.height, pattern.cells.length]).toEqual([width, height, live]);
  });

  it('ignores case and surrounding space', () => {
    expect(parsePattern('  R-Pentomino\n')).toEqual(parsePattern('r-pentomino'));
  });

  it('lists the known names for an unknown one', () => {
    expect(() => parsePattern('glidr')).toThrow(PatternError);
    expect(() => parsePattern('glidr')).toThrow(
      /unknown pattern name "glidr"; known: .*glider.*r-pentomino/,
    );
  });

  it('rejects an empty text', () => {
    expect(() => parsePattern('   ')).toThrow(/pattern is empty/);
  });
});

describe('placement', () => {
  it('puts the top-left at floor((W - w) / 2), floor((H - h) / 2)', () => {
    const cells = placePattern(parsePattern('glider'), 8, 7);
    const live = [...cells.keys()].filter((i) => cells[i]).map((i) => [i % 8, Math.floor(i / 8)]);
    // left = floor(5 / 2) = 2, top = floor(4 / 2) = 2
    expect(live).toEqual([
      [3, 2],
      [4, 3],
      [2, 4],
      [3, 4],
      [4, 4],
    ]);
  });

  it('centres `single` on a ring', () => {
    expect(Array.from(placePattern(parsePattern('single'), 5, 1))).toEqual([0, 0, 1, 0, 0]);
    expect(Array.from(placePattern(parsePattern('single'), 4, 1))).toEqual([0, 1, 0, 0]);
  });

  it('refuses a pattern larger than the lattice', () => {
    expect(() => placePattern(parsePattern('gosper-glider-gun'), 35, 40)).toThrow(
      /pattern is 36 x 9, larger than the 35 x 40 lattice/,
    );
    expect(() => placePattern(parsePattern('glider'), 10, 1)).toThrow(PatternError);
  });
});
