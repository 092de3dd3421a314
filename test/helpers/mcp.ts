import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { newId } from '../../src/lib/ids';
import { call } from './http';
import type { TestKey } from './keys';
import type { TestApp } from './test-app';

/** An MCP client (the SDK's own) of the app's `/mcp`, calling with this key. */
export async function mcpOverHttp(app: TestApp, key: TestKey | string): Promise<Client> {
  const apiKey = typeof key === 'string' ? key : key.apiKey;
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
    requestInit: { headers: { 'X-API-Key': apiKey } },
  });
  await client.connect(transport);
  return client;
}

/** A tool call's answer: its text, whether it is a tool error, and its structured fields. */
export interface ToolResult {
  text: string;
  isError: boolean;
  structured: Record<string, unknown>;
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: Parameters<Client['callTool']>[2] = {},
): Promise<ToolResult> {
  const result = await client.callTool({ name, arguments: args }, undefined, options);
  const content = result.content as { type: string; text?: string }[];
  return {
    text: content.map((c) => c.text ?? '').join('\n'),
    isError: result.isError === true,
    structured: (result.structuredContent ?? {}) as Record<string, unknown>,
  };
}

/** A world object (a document in draft) for an action to change. */
export async function draftDocument(app: TestApp, name = 'Quarterly report'): Promise<string> {
  const now = new Date().toISOString();
  const object = await app.deps.repos.worldObjects.insert({
    _id: newId('obj'),
    kind: 'document',
    name,
    attributes: { status: 'draft' },
    external_state: {},
    version: 1,
    created_at: now,
    updated_at: now,
  });
  return object._id;
}

/** A proposal changing the document's status to `reviewed`. */
export const reviewProposal = (objectId: string, bounds: Record<string, unknown> = {}) => ({
  action_kind: 'world.update_object',
  target: { world_object_ref: objectId },
  parameters: { patch: { status: 'reviewed' } },
  bounds: { allowed_fields: ['status'], ...bounds },
  reason: 'mark it reviewed',
});

/** A person's decision through the HTTP API, bound to the plan digest the action shows. */
export async function decideOverHttp(
  app: TestApp,
  key: TestKey,
  actionId: string,
  decision: 'approve' | 'reject',
  reason: string,
): Promise<number> {
  const read = await call<{ payload: { dry_run: { plan_digest: string } } }>(
    app.url,
    'GET',
    `/v1/external-actions/${actionId}`,
    { key: key.apiKey },
  );
  const res = await call(app.url, 'POST', `/v1/external-actions/${actionId}/${decision}`, {
    key: key.apiKey,
    body: { reason, plan_digest: read.body.payload.dry_run.plan_digest },
  });
  return res.status;
}
