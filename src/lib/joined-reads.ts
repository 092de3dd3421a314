/**
 * Shares one read among the callers that ask for the same key at about the same time, and
 * never answers a caller from a read that started before it asked: with no read of the key
 * running, a caller starts one; a caller that arrives while one runs waits for the next,
 * which starts when the running one settles and answers everyone who asked meanwhile. So at
 * most two reads per key are ever pending (one running, one waiting), and each answer
 * reflects every write that completed before its caller asked (the guarantee of a read of
 * its own), at up to one extra round trip of latency.
 *
 * Why: on a busy process, every cached world read validated itself with one `_id` read of
 * its own (`world-revisions.repo.ts`); at 10 concurrent requests that was one database
 * command per request for the same answer (sessions bench, `list_objects`).
 */
export function createJoinedReads<K, T>(read: (key: K) => Promise<T>): (key: K) => Promise<T> {
  const running = new Map<K, Promise<T>>();
  const waiting = new Map<K, Promise<T>>();

  const start = (key: K): Promise<T> => {
    const run = read(key).finally(() => {
      if (running.get(key) === run) running.delete(key);
    });
    running.set(key, run);
    return run;
  };

  return (key: K): Promise<T> => {
    const current = running.get(key);
    if (!current) return start(key);
    let next = waiting.get(key);
    if (!next) {
      next = current
        .catch(() => undefined)
        .then(() => {
          waiting.delete(key);
          return start(key);
        });
      waiting.set(key, next);
    }
    return next;
  };
}
