import { decodeCursor, encodeCursor } from '../../src/lib/cursor';
import { Invalid } from '../../src/lib/errors';

const readPair = (parts: unknown[]) =>
  typeof parts[0] === 'string' && typeof parts[1] === 'number'
    ? { at: parts[0], n: parts[1] }
    : undefined;

describe('the cursor codec', () => {
  it('round-trips a sort key through an opaque, path-safe string', () => {
    const cursor = encodeCursor(['2026-01-01T00:00:00.000Z', 7]);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, readPair)).toEqual({ at: '2026-01-01T00:00:00.000Z', n: 7 });
  });

  it.each([
    ['not base64 JSON', 'bm90IGpzb24'],
    ['not an array', encodeCursor([]).replace(/.*/, Buffer.from('{"a":1}').toString('base64url'))],
    ['parts the list refuses', encodeCursor(['a', 'b'])],
  ])('answers 422 on cursor for %s', (_what, cursor) => {
    let thrown: unknown;
    try {
      decodeCursor(cursor, readPair);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Invalid);
    expect((thrown as Invalid).issues[0]?.loc).toEqual(['query', 'cursor']);
  });
});
