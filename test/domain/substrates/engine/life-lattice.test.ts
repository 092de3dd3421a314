import {
  createSubstrate,
  LifeLattice,
  parseLifeRule,
  randomCells,
  ReferenceLattice,
  type Substrate,
} from '../../../../src/domain/substrates/engine';

const SIZES: Array<[number, number]> = [
  [33, 17],
  [1, 1],
  [2, 3],
  [65, 64],
  [1, 7],
  [7, 1],
  [2, 2],
  [3, 2],
  [32, 32],
  [31, 33],
  [64, 3],
  [97, 5],
];

const RULES = [
  'B3/S23',
  'B36/S23',
  'B2/S',
  'B0/S8',
  'B0/S',
  'B1357/S1357',
  'B3678/S34678',
  'B012345678/S012345678',
  'B/S012345678',
];

function pair(width: number, height: number, rule: string, seed: number, density = 0.5) {
  const start = {
    width,
    height,
    rule: parseLifeRule(rule),
    cells: randomCells(width, height, seed, density),
  };
  return { fast: new LifeLattice(start), reference: new ReferenceLattice(start) };
}

const liveKeys = (substrate: Substrate) => substrate.liveCells().map(([x, y]) => `${x},${y}`);

describe('fast life lattice against the reference', () => {
  describe.each(RULES)('%s', (rule) => {
    it.each(SIZES)('%d x %d: equal cell for cell over 120 generations', (width, height) => {
      for (const [seed, density] of [
        [width * 1000 + height, 0.5],
        [7, 0.2],
      ]) {
        const { fast, reference } = pair(width, height, rule, seed, density);
        for (let generation = 0; generation <= 120; generation += 1) {
          if (Buffer.compare(fast.snapshot(), reference.snapshot()) !== 0) {
            throw new Error(
              `${rule} ${width}x${height} seed ${seed}: differs at generation ${generation}`,
            );
          }
          fast.step();
          reference.step();
        }
        expect(fast.tick).toBe(121);
        expect(fast.digest()).toBe(reference.digest());
      }
    });
  });

  it('agrees on every read: cells, population, box, window, get with wrap', () => {
    const { fast, reference } = pair(45, 38, 'B3/S23', 99, 0.1);
    fast.step(30);
    reference.step(30);
    expect(fast.liveCells()).toEqual(reference.liveCells());
    expect(fast.population()).toBe(reference.population());
    expect(fast.population()).toBe(fast.liveCells().length);
    expect(fast.boundingBox()).toEqual(reference.boundingBox());
    const box = { x: 40, y: -3, width: 12, height: 9 };
    expect(fast.window(box)).toEqual(reference.window(box));
    for (const [x, y] of [
      [-1, -1],
      [45, 38],
      [90, 0],
      [-46, 77],
    ]) {
      expect(fast.get(x, y)).toBe(reference.get(x, y));
    }
  });

  it('refuses a start whose cell count does not fit the lattice', () => {
    const start = { width: 4, height: 3, rule: parseLifeRule('B3/S23'), cells: new Uint8Array(11) };
    expect(() => new LifeLattice(start)).toThrow(/11 cells given for a 4x3 lattice/);
    expect(() => new ReferenceLattice(start)).toThrow(/11 cells given for a 4x3 lattice/);
  });

  it('clones independently', () => {
    const { fast } = pair(40, 40, 'B3/S23', 5);
    const copy = fast.clone();
    copy.step(10);
    expect(fast.tick).toBe(0);
    expect(copy.tick).toBe(10);
    fast.step(10);
    expect(fast.digest()).toBe(copy.digest());
  });
});

describe('life behaviour', () => {
  const glider = 'bob$2bo$3o!';

  it.each([
    [20, 20, 80],
    [10, 7, 70],
  ])(
    'a glider moves (+1, +1) every 4 ticks on a %d x %d torus, across its edges',
    (width, height, ticks) => {
      const world = createSubstrate('life-lattice', {
        width,
        height,
        rule: 'B3/S23',
        pattern: glider,
      });
      const start = world.liveCells();
      expect(start).toHaveLength(5);
      for (let moves = 1; moves * 4 <= ticks; moves += 1) {
        world.step(4);
        const shifted = start
          .map(([x, y]): [number, number] => [(x + moves) % width, (y + moves) % height])
          .sort(([ax, ay], [bx, by]) => ay - by || ax - bx);
        expect(world.liveCells()).toEqual(shifted);
      }
    },
  );

  it('a tiny torus where neighbours wrap onto themselves follows the definition', () => {
    // 1 x 1: the cell is all 8 of its own neighbours, so a live cell has 8 and a dead one 0.
    const lone = (rule: string, live: boolean) =>
      new LifeLattice({
        width: 1,
        height: 1,
        rule: parseLifeRule(rule),
        cells: Uint8Array.of(live ? 1 : 0),
      });
    const survives = lone('B3/S8', true);
    survives.step();
    expect(survives.population()).toBe(1);
    const dies = lone('B3/S23', true);
    dies.step();
    expect(dies.population()).toBe(0);
    const born = lone('B0/S', false);
    born.step();
    expect(born.population()).toBe(1);
  });

  it('the R-pentomino stabilises at generation 1103 with population 116', () => {
    // 1024 x 1024: its six gliders travel about 300 cells by generation 1203, far from
    // wrapping round into the debris or each other.
    const world = createSubstrate('life-lattice', {
      width: 1024,
      height: 1024,
      rule: 'B3/S23',
      pattern: 'r-pentomino',
    });
    world.step(1102);
    expect(world.population()).not.toBe(116);
    const populations: number[] = [];
    for (let generation = 1103; generation <= 1203; generation += 1) {
      world.step();
      populations.push(world.population());
    }
    expect(new Set(populations)).toEqual(new Set([116]));
  });

  it('keeps every read consistent with the live cells', () => {
    const world = createSubstrate('life-lattice', {
      width: 70,
      height: 50,
      rule: 'B3/S23',
      pattern: 'acorn',
    });
    world.step(40);
    const live = liveKeys(world);
    expect(new Set(live).size).toBe(world.population());
    const box = world.boundingBox();
    expect(box).not.toBeNull();
    const rows = world.window({ x: 0, y: 0, width: 70, height: 50 });
    const fromWindow = rows.flatMap((row, y) =>
      [...row].flatMap((char, x) => (char === '#' ? [`${x},${y}`] : [])),
    );
    expect(fromWindow).toEqual(live);
  });

  it('reports an empty world', () => {
    const world = createSubstrate('life-lattice', {
      width: 9,
      height: 9,
      rule: 'B3/S23',
      seed: 1,
      density: 0,
    });
    expect(world.population()).toBe(0);
    expect(world.boundingBox()).toBeNull();
    expect(world.liveCells()).toEqual([]);
  });

  it('refuses a bad tick count', () => {
    const world = createSubstrate('life-lattice', {
      width: 9,
      height: 9,
      rule: 'B3/S23',
      pattern: 'glider',
    });
    expect(() => world.step(-1)).toThrow(/ticks/);
    expect(() => world.step(1.5)).toThrow(/ticks/);
  });
});
