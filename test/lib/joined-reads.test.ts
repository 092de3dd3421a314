import { createJoinedReads } from '../../src/lib/joined-reads';

/** A read whose answers the test releases by hand, recording when each started. */
function controlledRead() {
  const started: { key: string; finish: (value: number) => void; fail: (e: Error) => void }[] = [];
  const read = (key: string) =>
    new Promise<number>((finish, fail) => started.push({ key, finish, fail }));
  return { started, read };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('joined reads', () => {
  it('answers callers that arrive during a read from the next read, shared', async () => {
    const { started, read } = controlledRead();
    const joined = createJoinedReads(read);
    const first = joined('k');
    await settle();
    expect(started).toHaveLength(1);
    // Arrive while the first read runs: they must not get its (possibly older) answer.
    const second = joined('k');
    const third = joined('k');
    await settle();
    expect(started).toHaveLength(1);
    started[0].finish(1);
    expect(await first).toBe(1);
    await settle();
    expect(started).toHaveLength(2);
    started[1].finish(2);
    expect(await second).toBe(2);
    expect(await third).toBe(2);
    // Nothing running: a new caller starts a read at once.
    const fourth = joined('k');
    await settle();
    expect(started).toHaveLength(3);
    started[2].finish(3);
    expect(await fourth).toBe(3);
  });

  it('keeps keys apart, and a failed read fails only its own callers', async () => {
    const { started, read } = controlledRead();
    const joined = createJoinedReads(read);
    const a = joined('a');
    const b = joined('b');
    const aAgain = joined('a');
    await settle();
    expect(started.map((s) => s.key)).toEqual(['a', 'b']);
    started[0].fail(new Error('down'));
    await expect(a).rejects.toThrow('down');
    await settle();
    expect(started.map((s) => s.key)).toEqual(['a', 'b', 'a']);
    started[2].finish(7);
    started[1].finish(8);
    expect(await aAgain).toBe(7);
    expect(await b).toBe(8);
  });
});
