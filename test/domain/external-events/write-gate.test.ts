import { createWriteGate } from '../../../src/domain/external-events/write-gate';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('the write gate of the reconciler', () => {
  it('runs at most `width` steps at once, starting them in arrival order', async () => {
    const gate = createWriteGate(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const step = (n: number) => async () => {
      started.push(n);
      running += 1;
      most = Math.max(most, running);
      await tick();
      running -= 1;
      return n;
    };
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => gate.run(step(n))));
    expect(results).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
    expect(started).toEqual([1, 2, 3, 4, 5]);
  });

  it('frees its place when a step fails', async () => {
    const gate = createWriteGate(1);
    await expect(gate.run(() => Promise.reject(new Error('write failed')))).rejects.toThrow();
    await expect(gate.run(async () => 'next')).resolves.toBe('next');
  });
});
