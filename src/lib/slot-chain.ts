/**
 * A slot chain: slots 1, 2, 3, … filled in order with no gaps (each claimed by a unique
 * insert), so the filled ones are a prefix. Finding the newest filled slot from one known to
 * be filled costs O(log n) reads by key: gallop (1, 2, 4, … past it) until a probe misses,
 * then bisect between the last hit and the miss.
 *
 * `probe(n)` reads slot n, answering its value or null when it is empty. `floor` is a slot
 * known to be filled (0 and a null value for "none yet"). Answers the newest filled slot
 * and its value.
 */
export async function newestFilledSlot<T>(
  probe: (slot: number) => Promise<T | null>,
  floor: { slot: number; value: T | null } = { slot: 0, value: null },
): Promise<{ slot: number; value: T | null }> {
  let best = floor.value;
  let low = floor.slot;
  let high: number | undefined;
  for (let stride = 1; high === undefined; stride *= 2) {
    const found = await probe(low + stride);
    if (found !== null) [best, low] = [found, low + stride];
    else high = low + stride;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    const found = await probe(middle);
    if (found !== null) [best, low] = [found, middle];
    else high = middle;
  }
  return { slot: low, value: best };
}

/**
 * The newest filled slot at or after `from` (filled, or 0), when only whether a slot is
 * filled matters: `newestFilledSlot` over a yes/no probe.
 */
export async function newestFilledFrom(
  isFilled: (slot: number) => Promise<boolean>,
  from: number,
): Promise<number> {
  const { slot } = await newestFilledSlot(
    async (candidate) => ((await isFilled(candidate)) ? candidate : null),
    { slot: from, value: from },
  );
  return slot;
}
