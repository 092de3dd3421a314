/** Runs async steps at most `width` at a time, starting them in arrival order. */
export function createWriteGate(width: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };
  return {
    async run<T>(step: () => Promise<T>): Promise<T> {
      if (running < width) running += 1;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await step();
      } finally {
        release();
      }
    },
  };
}
