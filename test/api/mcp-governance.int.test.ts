import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { eventually } from '../helpers/eventually';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { callTool, mcpOverHttp } from '../helpers/mcp';
import { startTestApp, type TestApp } from '../helpers/test-app';

// Issue 45: a tool call over /mcp is made of its key's own API requests, dispatched through
// the api's whole chain: each is in the request ledger, and each counts against the key's
// limits and quota like a request sent over HTTP. No worker is needed for reads.
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp('mcp_governance');
});
afterAll(() => app.close());

type Row = { operation_id: string | null; key_id: string | null; status: number };

it('records each request a tool call makes in the request ledger, under the caller’s key', async () => {
  const key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  const agent = await mcpOverHttp(app, key);
  try {
    const read = await callTool(agent, 'list_world_objects', { limit: 5 });
    expect(read.isError).toBe(false);
    const rows = await eventually(
      async () =>
        (
          await call<{ payload: { items: Row[] } }>(
            app.url,
            'GET',
            `/v1/admin/requests?key_id=${key.keyId}`,
            { key: app.adminKey },
          )
        ).body.payload.items,
      (items) => items.some((row) => row.operation_id === 'worlds.objects.list'),
    );
    expect(rows.find((row) => row.operation_id === 'worlds.objects.list')).toMatchObject({
      key_id: key.keyId,
      status: 200,
    });
  } finally {
    await agent.close();
  }
});

it('counts a tool call’s requests against the key’s quota, and tells the agent when it runs out', async () => {
  const key: TestKey = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  const policy = await call(app.url, 'POST', '/v1/admin/policies/create', {
    key: app.adminKey,
    body: {
      name: 'small agent quota',
      scope: { key_id: key.keyId },
      requests_per_minute: 100,
      daily_quota: 12,
    },
  });
  expect(policy.status).toBe(201);
  const agent: Client = await mcpOverHttp(app, key);
  try {
    // Each call is its /mcp request and then the tool's own: the tool's is the first refused.
    let refused: Awaited<ReturnType<typeof callTool>> | undefined;
    for (let i = 0; i < 12 && !refused; i += 1) {
      const answer = await callTool(agent, 'list_world_objects', { limit: 1 });
      if (answer.isError) refused = answer;
    }
    expect(refused?.text).toMatch(/^The service refused: daily quota of 12 requests exceeded/);
    expect(refused?.text).toContain("A person (an operator) can raise the key's limits");
    // And the next /mcp request itself is refused by the same quota.
    await expect(callTool(agent, 'list_world_objects', { limit: 1 })).rejects.toThrow(
      /quota_exceeded/,
    );
  } finally {
    await agent.close().catch(() => undefined);
  }
});
