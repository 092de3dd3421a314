import {
  eitherCursor,
  feedCursor,
  idCursor,
  ledgerCursor,
  nameCursor,
  nextCursorSchema,
  timeCursor,
  type CursorFormat,
} from '../../src/lib/cursor';
import { Invalid } from '../../src/lib/errors';

/** The pattern the document states for a format, as ajv reads it. */
const stated = (format: { schema: { pattern?: string } }) =>
  new RegExp(format.schema.pattern!, 'u');

const refusal = (decode: () => unknown): Invalid => {
  try {
    decode();
  } catch (error) {
    if (error instanceof Invalid) return error;
    throw error;
  }
  throw new Error('the cursor was accepted');
};

describe('cursor formats', () => {
  const formats: [string, CursorFormat<never>, unknown][] = [
    ['time', timeCursor, { at: '2026-11-28T16:03:02.123Z', id: 'aud_01JG0000000000000000000000' }],
    ['id', idCursor('act'), 'act_01JG0000000000000000000000'],
    ['name', nameCursor, 'glider-gun'],
    ['feed', feedCursor(['all', 'object']), { chain: 'object', slot: 12, index: 0 }],
    ['ledger', ledgerCursor, { at: '2026-11-28T16:03:02.123Z', bucket: null, index: 3 }],
    [
      'ledger, bucketed',
      ledgerCursor,
      { at: '2026-11-28T16:03:02.123Z', bucket: 'rlb_1:2', index: 0 },
    ],
  ] as never;

  it.each(formats)(
    '%s: a position round-trips through text its stated pattern matches',
    (_n, format, position) => {
      const cursor = format.encode(position as never);
      expect(cursor).toMatch(stated(format));
      expect(format.decode(cursor)).toEqual(position);
      // The document's example is a cursor the list accepts.
      expect(format.example).toMatch(stated(format));
      expect(() => format.decode(format.example)).not.toThrow();
    },
  );

  it('reads a time cursor as `<time>~<id>`, any time the pattern allows (a position between items)', () => {
    expect(timeCursor.encode({ at: '2026-01-02T03:04:05.006Z', id: 'k1' })).toBe(
      '2026-01-02T03:04:05.006Z~k1',
    );
    // 30 February is no instant, but it is a place in a list sorted by time written as text.
    expect(timeCursor.decode('2026-02-30T00:00:00.000Z~aud_x')).toEqual({
      at: '2026-02-30T00:00:00.000Z',
      id: 'aud_x',
    });
  });

  it.each([
    ['an old opaque cursor', timeCursor, 'WyIyMDI2LTAxLTAxVDAwOjAwOjAwLjAwMFoiLCJhIl0'],
    ['a time not as the service writes it', timeCursor, '2026-01-01T00:00:00Z~aud_x'],
    ['month 13', timeCursor, '2026-13-01T00:00:00.000Z~aud_x'],
    ['an id of another list', idCursor('act'), 'dep_01JG0000000000000000000000'],
    ['a trailing newline', idCursor('act'), 'act_01JG0000000000000000000000\n'],
    ['a chain the feed does not have', feedCursor(['all', 'object']), 'family~1~0'],
    ['a negative index', feedCursor(['all']), 'all~1~-1'],
    ['a fraction', feedCursor(['all']), 'all~1.5~0'],
    ['a ledger place without an index', ledgerCursor, '2026-01-01T00:00:00.000Z~b~'],
  ])(
    'refuses %s with a 422 on `cursor` that says what a cursor looks like',
    (_what, format, cursor) => {
      const error = refusal(() => (format as CursorFormat<unknown>).decode(cursor));
      expect(error.issues[0]?.loc).toEqual(['query', 'cursor']);
      expect(error.issues[0]?.msg).toMatch(/^Invalid cursor: expected /);
      expect(cursor).not.toMatch(stated(format));
    },
  );

  it('never hands out a cursor its own pattern refuses', () => {
    expect(() => timeCursor.encode({ at: 'yesterday', id: 'aud_x' })).toThrow(/does not match/);
    expect(() => idCursor('act').encode('dep_01JG0000000000000000000000')).toThrow(
      /does not match/,
    );
  });

  it('states a list taking two formats as either pattern, and next_cursor as the same format', () => {
    const schema = eitherCursor(idCursor('act'), feedCursor(['all', 'kind']));
    const pattern = new RegExp(schema.pattern!, 'u');
    expect('act_01JG0000000000000000000000').toMatch(pattern);
    expect('kind~3~1').toMatch(pattern);
    expect('act_01JG0000000000000000000000~kind~3~1').not.toMatch(pattern);
    const next = nextCursorSchema(timeCursor.schema) as unknown as {
      anyOf: { pattern?: string }[];
    };
    expect(next.anyOf[0]?.pattern).toBe(timeCursor.schema.pattern);
  });
});
