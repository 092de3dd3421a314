import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestKey, type TestKey } from '../helpers/keys';
import { callTool, draftDocument, mcpOverHttp, reviewProposal } from '../helpers/mcp';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// The /mcp transport answers each POST in the form it needs: a request that asked for
// progress as an SSE stream (its notifications, then its result), every other one as a
// single JSON body. The messages are sent raw here, on the session the SDK's client opened,
// to see each answer's form.
let app: TestApp;
let worker: TestWorker;
let ada: TestKey;
let agent: Client;
let actionId: string;

beforeAll(async () => {
  app = await startTestApp('mcp_answer_modes');
  worker = await startTestWorker(app.deps);
  ada = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  agent = await mcpOverHttp(app, ada);
  const proposed = await callTool(
    agent,
    'propose_action',
    reviewProposal(await draftDocument(app)),
  );
  actionId = String(proposed.structured['action_id']);
});
afterAll(async () => {
  await agent?.close();
  await worker.stop();
  await app.close();
});

let nextId = 1000;

/** A JSON-RPC request POSTed on the agent's session, as the SDK's client sends it. */
function post(method: string, params: Record<string, unknown>): Promise<Response> {
  const transport = agent.transport as StreamableHTTPClientTransport;
  return fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: {
      'X-API-Key': ada.apiKey,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': transport.sessionId!,
      'Mcp-Protocol-Version': transport.protocolVersion!,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: (nextId += 1), method, params }),
  });
}

const getAction = () =>
  post('tools/call', { name: 'get_action', arguments: { action_id: actionId } });

/** The `data` of each event of an SSE body, parsed. */
const events = (body: string) =>
  body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);

it('answers a call that asked for no progress as one JSON body, with its length', async () => {
  const response = await getAction();
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json');
  const body = await response.text();
  expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
  const answer = JSON.parse(body) as { result: { structuredContent: { action_id: string } } };
  expect(answer.result.structuredContent.action_id).toBe(actionId);

  const ping = await post('ping', {});
  expect(ping.headers.get('content-type')).toBe('application/json');
  expect(await ping.json()).toMatchObject({ jsonrpc: '2.0', result: {} });
});

it('streams a wait that asked for progress, while calls without progress beside it are answered as JSON', async () => {
  const waiting = post('tools/call', {
    name: 'wait_for_decision',
    arguments: { action_id: actionId, timeout_seconds: 2 },
    _meta: { progressToken: 'wait-1' },
  });
  // Calls on the same session while the wait is open: each still gets its own JSON body.
  for (let i = 0; i < 3; i += 1) {
    const read = await getAction();
    expect(read.headers.get('content-type')).toBe('application/json');
    expect(((await read.json()) as { result: { isError?: boolean } }).result.isError).toBe(
      undefined,
    );
  }
  const response = await waiting;
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const streamed = events(await response.text());
  const progress = streamed.filter((event) => event['method'] === 'notifications/progress');
  expect(progress.length).toBeGreaterThan(0);
  expect(progress[0]).toMatchObject({
    params: { progressToken: 'wait-1', message: 'awaiting_approval: 0 approval(s) so far' },
  });
  // The result comes last, on the same stream.
  const last = streamed[streamed.length - 1] as { result?: { structuredContent?: unknown } };
  expect(last.result?.structuredContent).toMatchObject({ action_id: actionId });
});
