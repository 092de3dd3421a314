import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AnswerModeTransport, asksForProgress } from '../../src/api/mcp/answer-mode';

// The transport behind /mcp chooses each POST's answer form: SSE for a request that asked for
// progress, one JSON body otherwise, with both kinds in flight on one session at once.

/** A server whose `slow` tool reports progress (when asked) until `release` is called. */
async function session() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    if (request.params.name === 'slow') {
      if (token !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: 1, total: 2 },
        });
      }
      await released;
    }
    return { content: [{ type: 'text', text: `${request.params.name} done` }] };
  });
  const transport = new AnswerModeTransport({ sessionIdGenerator: () => 'session-1' });
  await server.connect(transport);
  let id = 0;
  const post = (message: Record<string, unknown>) => {
    const body = { jsonrpc: '2.0', ...message };
    return transport.handleRequest(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-session-id': 'session-1',
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        },
      }),
      { parsedBody: body },
    );
  };
  const call = (name: string, meta?: Record<string, unknown>) =>
    post({ id: (id += 1), method: 'tools/call', params: { name, arguments: {}, _meta: meta } });
  const opened = await post({
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    },
  });
  expect(opened.status).toBe(200);
  await post({ method: 'notifications/initialized' });
  return { call, release, close: () => server.close() };
}

const dataOf = (body: string) =>
  body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);

it('answers a request that asked for no progress as JSON', async () => {
  const s = await session();
  const answer = await s.call('quick');
  expect(answer.headers.get('content-type')).toBe('application/json');
  expect(await answer.json()).toMatchObject({ result: { content: [{ text: 'quick done' }] } });
  await s.close();
});

it('streams a request that asked for progress, while JSON answers go on beside it', async () => {
  const s = await session();
  const streamed = await s.call('slow', { progressToken: 'p' });
  expect(streamed.headers.get('content-type')).toBe('text/event-stream');
  // While the stream is open (its tool waits), other requests are still answered as JSON.
  const quick = await s.call('quick');
  expect(quick.headers.get('content-type')).toBe('application/json');
  expect(await quick.json()).toMatchObject({ result: { content: [{ text: 'quick done' }] } });
  s.release();
  const events = dataOf(await streamed.text());
  expect(events.map((e) => e['method'] ?? 'result')).toEqual(['notifications/progress', 'result']);
  expect(events[1]).toMatchObject({ result: { content: [{ text: 'slow done' }] } });
  await s.close();
});

it('answers a slow request without progress as JSON once it is done, whatever came between', async () => {
  const s = await session();
  const slow = s.call('slow');
  const streamed = await s.call('quick', { progressToken: 'q' });
  expect(streamed.headers.get('content-type')).toBe('text/event-stream');
  expect(dataOf(await streamed.text())).toMatchObject([
    { result: { content: [{ text: 'quick done' }] } },
  ]);
  s.release();
  const answer = await slow;
  expect(answer.headers.get('content-type')).toBe('application/json');
  expect(await answer.json()).toMatchObject({ result: { content: [{ text: 'slow done' }] } });
  await s.close();
});

it('tells a progress token in any message of a POST', () => {
  expect(asksForProgress({ method: 'tools/call', params: { _meta: { progressToken: 0 } } })).toBe(
    true,
  );
  expect(asksForProgress([{ method: 'ping' }, { params: { _meta: { progressToken: 'x' } } }])).toBe(
    true,
  );
  expect(asksForProgress({ method: 'tools/call', params: { _meta: {} } })).toBe(false);
  expect(asksForProgress(null)).toBe(false);
});
