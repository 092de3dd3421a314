import { createSubstrate, detectPeriod } from '../../../../src/domain/substrates/engine';

const life = (pattern: string, size = 16) =>
  createSubstrate('life-lattice', { width: size, height: size, rule: 'B3/S23', pattern });

describe('detectPeriod', () => {
  it('blinker: period 2; block: period 1', () => {
    expect(detectPeriod(life('blinker'), 10)).toEqual({
      period: 2,
      first_repeat_tick: 0,
      ticks_examined: 2,
    });
    expect(detectPeriod(life('block'), 10)).toEqual({
      period: 1,
      first_repeat_tick: 0,
      ticks_examined: 1,
    });
  });

  it('an empty world has period 1', () => {
    const empty = createSubstrate('life-lattice', {
      width: 8,
      height: 8,
      rule: 'B3/S23',
      seed: 1,
      density: 0,
    });
    expect(detectPeriod(empty, 5)).toMatchObject({ period: 1, first_repeat_tick: 0 });
  });

  it('finds the preperiod: a dying pattern repeats from the tick it is empty', () => {
    // Diehard dies at generation 130; the empty world then repeats.
    const world = life('diehard', 64);
    expect(detectPeriod(world, 200)).toEqual({
      period: 1,
      first_repeat_tick: 130,
      ticks_examined: 131,
    });
  });

  it('a glider on a 12 x 12 torus returns after 48 ticks', () => {
    expect(detectPeriod(life('glider', 12), 100)).toEqual({
      period: 48,
      first_repeat_tick: 0,
      ticks_examined: 48,
    });
  });

  it('returns null without a repeat, leaves the substrate alone, and counts from its tick', () => {
    const world = life('glider', 12);
    expect(detectPeriod(world, 47)).toBeNull();
    expect(world.tick).toBe(0);
    world.step(5);
    expect(detectPeriod(world, 48)).toEqual({
      period: 48,
      first_repeat_tick: 5,
      ticks_examined: 48,
    });
    expect(world.tick).toBe(5);
  });

  it('works on rings: rule 90 from one cell on 16 cells dies out', () => {
    const ring = createSubstrate('elementary-1d', { width: 16, rule: 90, pattern: 'single' });
    expect(detectPeriod(ring, 40)).toEqual({ period: 1, first_repeat_tick: 8, ticks_examined: 9 });
  });
});
