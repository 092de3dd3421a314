import {
  createSubstrate,
  detectPeriod,
  type Substrate,
} from '../../../../src/domain/substrates/engine';

const life = (pattern: string, size = 64): Substrate =>
  createSubstrate('life-lattice', { width: size, height: size, rule: 'B3/S23', pattern });

const moved = (cells: Array<[number, number]>, dx: number, dy: number) =>
  cells.map(([x, y]) => [x + dx, y + dy]);

describe('named patterns behave as their names say', () => {
  it.each([
    ['block', 1],
    ['beehive', 1],
    ['loaf', 1],
    ['boat', 1],
    ['tub', 1],
    ['blinker', 2],
    ['toad', 2],
    ['beacon', 2],
    ['pulsar', 3],
    ['pentadecathlon', 15],
  ])('%s has period %d from the start', (name, period) => {
    const world = life(name);
    const found = detectPeriod(world, 40);
    expect(found).toEqual({ period, first_repeat_tick: 0, ticks_examined: period });
    expect(world.tick).toBe(0);
  });

  it.each([
    ['glider', 1, 1],
    ['lwss', -2, 0],
    ['mwss', -2, 0],
    ['hwss', -2, 0],
  ])('%s moves (%d, %d) in 4 ticks', (name, dx, dy) => {
    const world = life(name);
    const start = world.liveCells();
    world.step(4);
    expect(world.liveCells()).toEqual(moved(start, dx, dy));
  });

  it('diehard dies at generation 130', () => {
    const world = life('diehard', 128);
    world.step(129);
    expect(world.population()).toBeGreaterThan(0);
    world.step();
    expect(world.population()).toBe(0);
  });

  it('the Gosper gun adds a glider (5 cells) every 30 generations', () => {
    const world = life('gosper-glider-gun', 256);
    const populations = [world.population()];
    for (let i = 0; i < 5; i += 1) {
      world.step(30);
      populations.push(world.population());
    }
    expect(populations).toEqual([36, 41, 46, 51, 56, 61]);
  });
});
