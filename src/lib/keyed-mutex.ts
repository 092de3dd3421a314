/**
 * One-at-a-time sections per key, in arrival order, within this process: `run(key, fn)`
 * starts `fn` once every earlier section of the same key has settled. Keys without a
 * waiter are forgotten, so the map holds only keys in use.
 */
export function createKeyedMutex() {
  const tails = new Map<string, Promise<void>>();
  return {
    async run<T>(key: string, section: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      let release = (): void => {};
      const tail = previous.then(() => new Promise<void>((resolve) => (release = resolve)));
      tails.set(key, tail);
      await previous;
      try {
        return await section();
      } finally {
        release();
        if (tails.get(key) === tail) tails.delete(key);
      }
    },
    /** Keys with a section running or waiting (for tests). */
    get size(): number {
      return tails.size;
    },
  };
}

export type KeyedMutex = ReturnType<typeof createKeyedMutex>;
