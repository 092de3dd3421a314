import { createHash } from 'node:crypto';
import {
  createSubstrate,
  EngineParamsError,
  packSnapshot,
  PatternError,
  restoreSubstrate,
  RuleError,
  SnapshotError,
  type EngineParams,
} from '../../../../src/domain/substrates/engine';

const seeded: EngineParams = { width: 96, height: 70, rule: 'B3/S23', seed: 12345 };

describe('createSubstrate', () => {
  it('replays a seed identically at every tick, and another seed differs', () => {
    const a = createSubstrate('life-lattice', seeded);
    const b = createSubstrate('life-lattice', seeded);
    const other = createSubstrate('life-lattice', { ...seeded, seed: 12346 });
    for (let tick = 0; tick <= 200; tick += 1) {
      expect(a.tick).toBe(tick);
      const digest = a.digest();
      expect(b.digest()).toBe(digest);
      expect(other.digest()).not.toBe(digest);
      a.step();
      b.step();
      other.step();
    }
  });

  it('keeps the pinned digests of a seeded start (PRNG, encoding and stepping unchanged)', () => {
    // Computed once with the reference engine (tick 0 also by an independent Python script).
    const world = createSubstrate('life-lattice', {
      width: 16,
      height: 12,
      rule: 'B3/S23',
      seed: 42,
    });
    expect(world.population()).toBe(101);
    expect(world.digest()).toBe('76db372bdc66003b790a11458a5fcc14dbf50ba6e9dc98eaf995580886db90bb');
    world.step(10);
    expect(world.population()).toBe(33);
    expect(world.digest()).toBe('6d4873aa822e98f1df95e3c25851af91609e09718432503aeb2ba97fafadcae3');
    const ring = createSubstrate('elementary-1d', { width: 21, rule: 30, seed: 42 });
    expect(ring.digest()).toBe('91da917fd4f1fe00137e7a0c607b5f9c4d39a80afd0efd07f296d51c4b1b5502');
    ring.step(10);
    expect(ring.digest()).toBe('df2451378ec20919558bc7e0aedff3f17bfce4cccef41c5505ea12e111734721');
  });

  it('encodes rows MSB-first in ceil(width / 8) bytes and digests `WxH:` + bytes', () => {
    const world = createSubstrate('life-lattice', {
      width: 10,
      height: 2,
      rule: 'B3/S23',
      pattern: 'O........O\n.O......O.',
    });
    const expected = Uint8Array.of(0b10000000, 0b01000000, 0b01000000, 0b10000000);
    expect(world.snapshot()).toEqual(expected);
    expect(
      packSnapshot(
        10,
        2,
        Uint8Array.of(1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0),
      ),
    ).toEqual(expected);
    const digest = createHash('sha256').update('10x2:').update(expected).digest('hex');
    expect(world.digest()).toBe(digest);
  });

  it('uses density (default 0.5)', () => {
    const half = createSubstrate('life-lattice', {
      width: 100,
      height: 100,
      rule: 'B3/S23',
      seed: 1,
    });
    const explicit = createSubstrate('life-lattice', {
      width: 100,
      height: 100,
      rule: 'B3/S23',
      seed: 1,
      density: 0.5,
    });
    expect(half.digest()).toBe(explicit.digest());
    const sparse = createSubstrate('life-lattice', {
      width: 100,
      height: 100,
      rule: 'B3/S23',
      seed: 1,
      density: 0.1,
    });
    expect(sparse.population()).toBeLessThan(1200);
    expect(half.population()).toBeGreaterThan(4500);
  });

  it.each<[string, Parameters<typeof createSubstrate>, RegExp | (new (...args: never[]) => Error)]>(
    [
      [
        'no start',
        ['life-lattice', { width: 8, height: 8, rule: 'B3/S23' }],
        /give seed .* or pattern/,
      ],
      [
        'both starts',
        ['life-lattice', { width: 8, height: 8, rule: 'B3/S23', seed: 1, pattern: 'glider' }],
        /not both/,
      ],
      ['width 0', ['life-lattice', { width: 0, height: 8, rule: 'B3/S23', seed: 1 }], /width 0/],
      ['no height', ['life-lattice', { width: 8, rule: 'B3/S23', seed: 1 }], /height is required/],
      ['ring height', ['elementary-1d', { width: 8, height: 2, rule: 30, seed: 1 }], /one row/],
      ['bad seed', ['life-lattice', { width: 8, height: 8, rule: 'B3/S23', seed: -1 }], /seed -1/],
      [
        'bad density',
        ['life-lattice', { width: 8, height: 8, rule: 'B3/S23', seed: 1, density: 2 }],
        /density 2/,
      ],
      [
        'numeric life rule',
        ['life-lattice', { width: 8, height: 8, rule: 23, seed: 1 }],
        RuleError,
      ],
      [
        'bad life rule',
        ['life-lattice', { width: 8, height: 8, rule: 'B9/S', seed: 1 }],
        RuleError,
      ],
      ['bad ring rule', ['elementary-1d', { width: 8, rule: 300, seed: 1 }], RuleError],
      [
        'pattern too large',
        ['life-lattice', { width: 8, height: 8, rule: 'B3/S23', pattern: 'gosper-glider-gun' }],
        PatternError,
      ],
      [
        '2-D pattern on a ring',
        ['elementary-1d', { width: 8, rule: 30, pattern: 'glider' }],
        PatternError,
      ],
    ],
  )('refuses %s', (_, [scaffold, params], error) => {
    expect(() => createSubstrate(scaffold, params)).toThrow(error);
  });

  it('throws EngineParamsError for parameter problems', () => {
    expect(() => createSubstrate('life-lattice', { width: 8, height: 8, rule: 'B3/S23' })).toThrow(
      EngineParamsError,
    );
  });
});

describe('restoreSubstrate', () => {
  it.each<[string, EngineParams]>([
    ['life-lattice', seeded],
    ['life-lattice', { width: 13, height: 5, rule: 'B36/S23', seed: 9 }],
    ['elementary-1d', { width: 77, rule: 110, seed: 3 }],
  ])('%s continues identically from a snapshot', (scaffold, params) => {
    const kind = scaffold as 'life-lattice' | 'elementary-1d';
    const original = createSubstrate(kind, params);
    original.step(37);
    const restored = restoreSubstrate(kind, params, 37, original.snapshot());
    expect(restored.tick).toBe(37);
    expect(restored.rule).toBe(original.rule);
    for (let i = 0; i < 60; i += 1) {
      expect(restored.digest()).toBe(original.digest());
      original.step();
      restored.step();
    }
    expect(restored.tick).toBe(97);
  });

  it('refuses a snapshot of the wrong length, with padding bits set, or a bad tick', () => {
    const params: EngineParams = { width: 10, height: 2, rule: 'B3/S23', seed: 1 };
    expect(() => restoreSubstrate('life-lattice', params, 5, new Uint8Array(3))).toThrow(
      SnapshotError,
    );
    expect(() => restoreSubstrate('life-lattice', params, 5, new Uint8Array(3))).toThrow(
      /3 bytes; a 10x2 lattice needs 4/,
    );
    expect(() => restoreSubstrate('life-lattice', params, 5, Uint8Array.of(0, 0x20, 0, 0))).toThrow(
      /row 0 sets bits past the lattice width 10/,
    );
    expect(() => restoreSubstrate('life-lattice', params, -1, new Uint8Array(4))).toThrow(
      /tick -1/,
    );
  });

  it('accepts a Buffer (as stored by the database driver)', () => {
    const world = createSubstrate('life-lattice', seeded);
    world.step(3);
    const restored = restoreSubstrate('life-lattice', seeded, 3, Buffer.from(world.snapshot()));
    expect(restored.digest()).toBe(world.digest());
  });
});
