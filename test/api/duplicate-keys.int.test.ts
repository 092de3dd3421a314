import { seedObject } from '../helpers/actions';
import { storedIn } from '../helpers/collections';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { mcpOverHttp, reviewProposal } from '../helpers/mcp';
import { startTestApp, type TestApp } from '../helpers/test-app';

// A repeated JSON key: `JSON.parse` keeps the last value, other parsers the first, so a
// reviewer reading the body sent could see another proposal than the one planned, approved
// and executed. Every body holding one is refused, naming the key's path, before anything is
// stored. Each case was accepted (the last value stored) before its fix.
let app: TestApp;
let key: TestKey;
beforeAll(async () => {
  app = await startTestApp('duplicate_keys');
  key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 3 });
});
afterAll(() => app.close());

interface Answer {
  error?: { code: string };
  detail?: { loc: (string | number)[]; type: string }[];
}

const post = (path: string, text: string, headers: Record<string, string> = {}) =>
  fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { 'X-API-Key': key.apiKey, 'Content-Type': 'application/json', ...headers },
    body: text,
  }).then(async (res) => ({ status: res.status, body: await res.json() }));

/** A 422 `duplicate_key` at exactly `loc`. */
function expectRepeated(res: { status: number; body: unknown }, loc: (string | number)[]) {
  const body = res.body as Answer;
  expect([res.status, body.error?.code]).toEqual([422, 'validation_error']);
  expect(body.detail?.map((issue) => [issue.type, issue.loc])).toEqual([['duplicate_key', loc]]);
}

const actionCount = () => storedIn(app.deps.db).actions.countDocuments();

describe('a repeated key is refused naming its path, and nothing is stored', () => {
  it('propose: a repeated parameter, or a repeated parameters object', async () => {
    const before = await actionCount();
    const notify = (parameters: string) =>
      `{"action_kind":"notify","target":{},"parameters":${parameters},"bounds":{},"reason":"x"}`;
    expectRepeated(
      await post('/v1/external-actions/propose', notify('{"message":"first","message":"second"}')),
      ['body', 'parameters', 'message'],
    );
    const twice = notify('{"message":"first"},"parameters":{"message":"second"}');
    expectRepeated(await post('/v1/external-actions/propose', twice), ['body', 'parameters']);
    expect(await actionCount()).toBe(before);
  });

  it('propose and dry-run: a world.update_object patch is never planned from the last value', async () => {
    const object = await seedObject(app);
    const text = JSON.stringify(reviewProposal(object._id)).replace(
      '"patch":{"status":"reviewed"}',
      '"patch":{"status":"a","status":"b"}',
    );
    const before = await actionCount();
    const loc = ['body', 'parameters', 'patch', 'status'];
    expectRepeated(await post('/v1/external-actions/propose', text), loc);
    expectRepeated(await post('/v1/external-actions/dry-run', text), loc);
    expect(await actionCount()).toBe(before);
  });

  it('ingest: in a payload, at any depth, arrays included', async () => {
    const family = `dupkeys.${process.pid}`;
    const event = (payload: string) =>
      `{"source_family":"${family}","source_event_id":"e-1","event_type":"x.changed","occurred_at":"2026-11-25T10:00:00Z","payload":${payload}}`;
    expectRepeated(await post('/v1/external-events/ingest', event('{"s":1,"s":2}')), [
      'body',
      'payload',
      's',
    ]);
    expectRepeated(
      await post('/v1/external-events/ingest', event('{"items":[{"n":1},{"n":1,"n":2}]}')),
      ['body', 'payload', 'items', 1, 'n'],
    );
    expectRepeated(
      await post('/v1/external-events/ingest-batch', `{"events":[${event('{"s":1,"s":2}')}]}`),
      ['body', 'events', 0, 'payload', 's'],
    );
    expect(
      await storedIn(app.deps.db).externalEvents.countDocuments({ source_family: family }),
    ).toBe(0);
  });

  it('a session note', async () => {
    const created = await call<{ payload: { session_id: string } }>(
      app.url,
      'POST',
      '/v1/sessions',
      { key: key.apiKey, body: {} },
    );
    const id = created.body.payload.session_id;
    const note = '{"input_packet":{"command":"note","args":{"text":"first","text":"second"}}}';
    expectRepeated(await post(`/v1/sessions/${id}/step`, note), [
      'body',
      'input_packet',
      'args',
      'text',
    ]);
    const recall = await call<{ payload: { output: unknown } }>(
      app.url,
      'POST',
      `/v1/sessions/${id}/step`,
      { key: key.apiKey, body: { input_packet: { command: 'recall' } } },
    );
    expect(JSON.stringify(recall.body)).not.toMatch(/second|first/);
  });

  it('MCP: a JSON-RPC error naming the path in the tool arguments, and no action', async () => {
    const object = await seedObject(app);
    const agent = await mcpOverHttp(app, key);
    try {
      const sessionId = (agent.transport as { sessionId?: string }).sessionId!;
      const args = JSON.stringify(reviewProposal(object._id)).replace(
        '"patch":{"status":"reviewed"}',
        '"patch":{"status":"a","status":"b"}',
      );
      const before = await actionCount();
      const res = await post(
        '/mcp',
        `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"propose_action","arguments":${args}}}`,
        { Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sessionId },
      );
      const loc = ['body', 'params', 'arguments', 'parameters', 'patch', 'status'];
      expect(res).toMatchObject({
        status: 400,
        body: {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message: expect.stringContaining(JSON.stringify(loc)) as unknown,
            data: { detail: [{ loc, type: 'duplicate_key' }] },
          },
        },
      });
      // The JSON-RPC envelope itself too.
      const envelope = await post('/mcp', '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', {
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': sessionId,
      });
      expect(envelope).toMatchObject({
        status: 400,
        body: { error: { code: -32600, data: { detail: [{ loc: ['body', 'id'] }] } } },
      });
      expect(await actionCount()).toBe(before);
    } finally {
      await agent.close();
    }
  });
});

describe('scenarios', () => {
  it('an empty expectation name is refused: the run it would store breaks its own schema', async () => {
    const res = await post(
      '/v1/scenarios/run',
      '{"scenario":"approval-drill","params":{"expect":{"":null}}}',
    );
    const body = res.body as Answer;
    expect([res.status, body.detail?.map((issue) => issue.loc)]).toEqual([
      422,
      [['body', 'params', 'expect', '']],
    ]);
    const long = 'x'.repeat(129);
    const tooLong = await post(
      '/v1/scenarios/run',
      JSON.stringify({ scenario: 'approval-drill', params: { expect: { [long]: 1 } } }),
    );
    expect([tooLong.status, (tooLong.body as Answer).detail?.map((issue) => issue.loc)]).toEqual([
      422,
      [['body', 'params', 'expect', long]],
    ]);
    expect(await app.deps.db.collection('scenario_runs').countDocuments()).toBe(0);
  });
});
