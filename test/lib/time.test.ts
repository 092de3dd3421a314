import { isoOfMs } from '../../src/lib/time';

describe('isoOfMs', () => {
  it('writes what toISOString writes, within a second and across seconds', () => {
    const start = Date.parse('2026-11-24T23:59:58.000Z');
    for (let ms = start; ms < start + 4000; ms += 1) {
      expect(isoOfMs(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('agrees on any four-digit-year time, and falls back outside them', () => {
    for (let i = 0; i < 20_000; i += 1) {
      const ms = Math.floor(Math.random() * 253_402_300_800_000);
      expect(isoOfMs(ms)).toBe(new Date(ms).toISOString());
    }
    for (const ms of [0, 999, 1000, 253_402_300_799_999, 253_402_300_800_000, -1, -1001, 1.5]) {
      expect(isoOfMs(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
