import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import * as eventsService from '../../src/domain/external-events/external-events.service';
import { seedObject } from '../helpers/actions';
import { storedIn } from '../helpers/collections';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

// Issue 40 (input integrity): a value the store cannot keep exactly is refused with 422
// naming its JSON path, never altered on the way in. Each case failed before its fix.
let app: TestApp;
let key: TestKey;
beforeAll(async () => {
  app = await startTestApp('body_integrity');
  key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 3 });
});
afterAll(() => app.close());

interface Issue {
  loc: (string | number)[];
  msg: string;
  type: string;
}
interface Answer {
  ok: boolean;
  error?: { code: string; message: string };
  detail?: Issue[];
  payload?: Record<string, unknown>;
}

let sequence = 0;
/** An event body whose payload is `payload` (raw JSON text), from its own source family. */
function eventText(payload: string, family = `integrity.${process.pid}.${(sequence += 1)}`) {
  return {
    family,
    text: `{"source_family":"${family}","source_event_id":"e-${sequence}","event_type":"x.changed","occurred_at":"2026-11-25T10:00:00Z","payload":${payload}}`,
  };
}

const post = (path: string, rawBody: string | Buffer, headers: Record<string, string> = {}) =>
  fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { 'X-API-Key': key.apiKey, 'Content-Type': 'application/json', ...headers },
    body: rawBody,
  }).then(async (res) => {
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) as Answer };
  });

async function storedEvents(family: string) {
  return storedIn(app.deps.db).externalEvents.find({ source_family: family }).toArray();
}

/** A 422 whose issues are exactly at `locs`, none of them repeating the store's words. */
function expectRefused(res: { status: number; text: string; body: Answer }, locs: unknown[][]) {
  expect({ status: res.status, text: res.text }).toEqual({ status: 422, text: expect.any(String) });
  expect(res.body.error?.code).toBe('validation_error');
  expect(res.body.detail?.map((issue) => issue.loc)).toEqual(locs);
  expect(res.text).not.toMatch(/infinity values|not allowed\)|BSON|E11000/i);
}

describe('numbers the store cannot hold exactly are refused with 422 naming the field', () => {
  it.each([
    ['1e309', 'finite_number', '1e309'],
    ['-1e309', 'finite_number', '-1e309'],
    ['a 400-digit integer', 'finite_number', `1${'0'.repeat(399)}`],
    ['2^53 + 1', 'unsafe_integer', '9007199254740993'],
    ['2^63 - 1', 'unsafe_integer', '9223372036854775807'],
    ['-(2^53 + 1)', 'unsafe_integer', '-9007199254740993'],
    ['-0', 'negative_zero', '-0'],
    ['-0.0e5', 'negative_zero', '-0.0e5'],
    ['1e-400', 'number_underflow', '1e-400'],
    ['-1e-400', 'number_underflow', '-1e-400'],
  ])('ingest: payload.n = %s is refused as %s, and nothing stored', async (_, type, number) => {
    const { family, text } = eventText(`{"status":"up","n":${number}}`);
    const res = await post('/v1/external-events/ingest', text);
    expectRefused(res, [['body', 'payload', 'n']]);
    expect(res.body.detail?.[0].type).toBe(type);
    expect(await storedEvents(family)).toEqual([]);
  });

  it('the largest exact integers, 0, -1.5 and a tiny but representable number are kept as sent', async () => {
    const payload =
      '{"max":9007199254740991,"min":-9007199254740991,"zero":0,"neg":-1.5,"tiny":5e-324,"big":1.5e300}';
    const { family, text } = eventText(payload);
    const res = await post('/v1/external-events/ingest', text);
    // 1.5e300 is a whole number beyond 2^53: refused like any other such integer.
    expectRefused(res, [['body', 'payload', 'big']]);
    const fine = eventText(payload.replace(',"big":1.5e300', ''), family);
    const ok = await post('/v1/external-events/ingest', fine.text);
    expect(ok.status).toBe(201);
    const [stored] = await storedEvents(family);
    expect(stored.payload).toEqual({
      max: 9007199254740991,
      min: -9007199254740991,
      zero: 0,
      neg: -1.5,
      tiny: 5e-324,
    });
  });

  it('ingest-batch: the request is refused naming the item and field, not with the store message', async () => {
    const family = `integrity.batch.${process.pid}`;
    const good = eventText('{"status":"up"}', family).text;
    const bad = eventText('{"n":1e309}', family).text;
    const res = await post('/v1/external-events/ingest-batch', `{"events":[${good},${bad}]}`);
    expectRefused(res, [['body', 'events', 1, 'payload', 'n']]);
    expect(await storedEvents(family)).toEqual([]);
  });

  it("ingest-batch: an item the store refuses anyway is named, without the store's own words", async () => {
    // No body can carry Infinity now; a caller inside the service still could.
    const family = `integrity.store.${process.pid}`;
    const item = (n: number) => ({
      source_family: family,
      source_event_id: `s-${n}`,
      event_type: 'x.changed',
      occurred_at: '2026-11-25T10:00:00.000Z',
      payload: { n },
    });
    const result = await eventsService.ingestBatch(app.deps, { events: [item(1), item(Infinity)] });
    expect(result.results.map((r) => r.status)).toEqual(['created', 'rejected']);
    const [error] = result.results[1].errors;
    expect(error.loc).toEqual(['body', 'events', 1]);
    expect(error.msg).toMatch(/event 1 /i);
    expect(error.msg).not.toMatch(/infinity values|not allowed/i);
  });

  it('propose and dry-run: an infinite value in a patch is refused, never planned as null', async () => {
    const object = await seedObject(app, { attributes: { status: 'draft' } });
    const before = await storedIn(app.deps.db).actions.countDocuments();
    for (const path of ['/v1/external-actions/dry-run', '/v1/external-actions/propose']) {
      const res = await post(
        path,
        `{"action_kind":"world.update_object","target":{"world_object_ref":"${object._id}"},"parameters":{"patch":{"status":1e309}},"bounds":{"allowed_fields":["status"]}}`,
      );
      expectRefused(res, [['body', 'parameters', 'patch', 'status']]);
    }
    expect(await storedIn(app.deps.db).actions.countDocuments()).toBe(before);
  });

  it('every number of a body is checked, each named once', async () => {
    const { text } = eventText('{"a":[1,2,1e999],"b":{"c":-0},"d":"1e999 in a string is text"}');
    const res = await post('/v1/external-events/ingest', text);
    expectRefused(res, [
      ['body', 'payload', 'a', 2],
      ['body', 'payload', 'b', 'c'],
    ]);
  });
});

describe('strings are stored as sent, or refused', () => {
  it('a lone surrogate (a JSON escape) is 422 naming the field, and nothing is stored', async () => {
    for (const escaped of ['\\ud800x', 'x\\udc00', '\\ud800\\ud800\\udc00']) {
      const { family, text } = eventText(`{"note":"${escaped}"}`);
      const res = await post('/v1/external-events/ingest', text);
      expectRefused(res, [['body', 'payload', 'note']]);
      expect(res.body.detail?.[0].type).toBe('string_unicode');
      expect(await storedEvents(family)).toEqual([]);
    }
  });

  it('a lone surrogate in a key is refused too', async () => {
    const { text } = eventText('{"\\udbff":1}');
    const res = await post('/v1/external-events/ingest', text);
    expect(res.status).toBe(422);
    expect(res.body.detail?.[0]).toMatchObject({ type: 'string_unicode' });
    expect(res.body.detail?.[0].loc.slice(0, 2)).toEqual(['body', 'payload']);
  });

  it('a surrogate pair, escaped or not, is text like any other and its digest holds', async () => {
    const { family, text } = eventText(
      '{"smile":"\\ud83d\\ude00 😀","escaped_backslash":"\\\\ud800"}',
    );
    const res = await post('/v1/external-events/ingest', text);
    expect(res.status).toBe(201);
    const [stored] = await storedEvents(family);
    expect(stored.payload).toEqual({ smile: '😀 😀', escaped_backslash: '\\ud800' });
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)(
    'a %s body holding invalid UTF-8 is 422, as it is uncompressed',
    async (encoding, compress) => {
      const { family, text } = eventText('{"note":"__"}');
      const [head, tail] = text.split('__');
      const bytes = Buffer.concat([
        Buffer.from(head),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(tail),
      ]);
      const res = await post('/v1/external-events/ingest', compress(bytes), {
        'Content-Encoding': encoding,
      });
      expect(res.status).toBe(422);
      expect(res.body.detail?.[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
      expect(await storedEvents(family)).toEqual([]);
      // The same body, valid, compressed the same way, is stored.
      const fine = eventText('{"note":"fine"}', family);
      const ok = await post('/v1/external-events/ingest', compress(Buffer.from(fine.text)), {
        'Content-Encoding': encoding,
      });
      expect(ok.status).toBe(201);
    },
  );
});

describe('keys', () => {
  it('__proto__ is refused naming the key and its path, not as a decode error', async () => {
    const { text } = eventText('{"deep":[{"__proto__":{"admin":true}}]}');
    const res = await post('/v1/external-events/ingest', text);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'payload', 'deep', 0, '__proto__'],
        type: 'forbidden_key',
      }),
    ]);
    expect(res.text).not.toContain('JSON decode error');
    // Spelled with escapes, it is the same key.
    const escaped = await post(
      '/v1/external-events/ingest',
      eventText('{"\\u005f_proto__":1}').text,
    );
    expect(escaped.body.detail?.[0]).toMatchObject({ loc: ['body', 'payload', '__proto__'] });
  });

  it('constructor and prototype are ordinary keys', async () => {
    const { family, text } = eventText('{"constructor":{"prototype":{"x":1}}}');
    expect((await post('/v1/external-events/ingest', text)).status).toBe(201);
    const [stored] = await storedEvents(family);
    expect(stored.payload).toEqual({ constructor: { prototype: { x: 1 } } });
  });
});

describe('what the body layer already refused is unchanged', () => {
  it('malformed JSON and too deep nesting are still 422 json_invalid and too_deep', async () => {
    const malformed = await post('/v1/external-events/ingest', '{"a":');
    expect(malformed.body.detail?.[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    const deep = await post(
      '/v1/external-events/ingest',
      eventText(`${'['.repeat(70)}${']'.repeat(70)}`).text,
    );
    expect(deep.status).toBe(422);
    expect(deep.body.detail?.[0]).toMatchObject({ type: 'too_deep' });
    expect(deep.body.detail?.[0].loc.slice(0, 3)).toEqual(['body', 'payload', 0]);
  });

  it('a body over 1 MiB is 413, compressed or not', async () => {
    const big = eventText(`{"pad":"${'x'.repeat(1024 * 1024)}"}`).text;
    expect((await post('/v1/external-events/ingest', big)).status).toBe(413);
    const zipped = await post('/v1/external-events/ingest', gzipSync(Buffer.from(big)), {
      'Content-Encoding': 'gzip',
    });
    expect(zipped.status).toBe(413);
  });
});
