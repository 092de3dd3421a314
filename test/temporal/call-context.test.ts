import { AsyncLocalStorage } from 'node:async_hooks';
import { releaseCallContextWhenIdle } from '../../src/temporal/gateway';

// The Temporal client's call-context storage, disabled whenever no call is inside it
// (docs/performance.md): the store still reaches everything a call awaits.
describe('releaseCallContextWhenIdle', () => {
  const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('keeps the store across awaits inside run, nested calls included', async () => {
    const storage = new AsyncLocalStorage<{ deadline: number }>();
    releaseCallContextWhenIdle(storage);
    const seen: (number | undefined)[] = [];
    const outer = storage.run({ deadline: 1 }, async () => {
      await tick();
      seen.push(storage.getStore()?.deadline);
      await storage.run({ deadline: 2 }, async () => {
        await tick();
        seen.push(storage.getStore()?.deadline);
      });
      await tick();
      seen.push(storage.getStore()?.deadline);
      return 'done';
    });
    await expect(outer).resolves.toBe('done');
    await tick();
    expect(seen).toEqual([1, 2, 1]);
    expect(storage.getStore()).toBeUndefined();
  });

  it('overlapping calls keep their own stores until the last one settles', async () => {
    const storage = new AsyncLocalStorage<string>();
    releaseCallContextWhenIdle(storage);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = storage.run('slow', async () => {
      await gate;
      return storage.getStore();
    });
    await storage.run('fast', async () => tick());
    release();
    await expect(slow).resolves.toBe('slow');
  });

  it('passes on what a call returns, rejects or throws', async () => {
    const storage = new AsyncLocalStorage<string>();
    releaseCallContextWhenIdle(storage);
    await expect(
      storage.run('a', async () => {
        await tick();
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(() =>
      storage.run('b', () => {
        throw new Error('sync');
      }),
    ).toThrow('sync');
    expect(storage.run('c', () => storage.getStore())).toBe('c');
    await tick();
    expect(storage.getStore()).toBeUndefined();
  });
});
