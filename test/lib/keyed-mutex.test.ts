import { createKeyedMutex } from '../../src/lib/keyed-mutex';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('the keyed mutex', () => {
  it('runs the sections of one key one at a time, in arrival order', async () => {
    const mutex = createKeyedMutex();
    const log: string[] = [];
    const section = (name: string) => async () => {
      log.push(`${name} in`);
      await tick();
      log.push(`${name} out`);
      return name;
    };
    const results = await Promise.all(['a', 'b', 'c'].map((n) => mutex.run('k', section(n))));
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a in', 'a out', 'b in', 'b out', 'c in', 'c out']);
    expect(mutex.size).toBe(0);
  });

  it('lets different keys run at once, and a failure release the key', async () => {
    const mutex = createKeyedMutex();
    let running = 0;
    let most = 0;
    const section = async () => {
      running += 1;
      most = Math.max(most, running);
      await tick();
      running -= 1;
    };
    await Promise.all([mutex.run('x', section), mutex.run('y', section)]);
    expect(most).toBe(2);
    await expect(mutex.run('x', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(mutex.run('x', async () => 'after')).resolves.toBe('after');
  });
});
