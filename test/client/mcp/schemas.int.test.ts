import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  createGovernedMcpServer,
  refusingDecisions,
} from '../../../packages/client/src/mcp/server';
import { ToolRefusal } from '../../../packages/client/src/mcp/refusals';
import { call } from '../../helpers/http';
import { startTestApp, type TestApp } from '../../helpers/test-app';

// Issue 45: the tools' input schemas are the OpenAPI document's own (generated from it into
// packages/client/src/mcp/operation-inputs.ts), checked here against the document the
// service serves, so a change to a route's schema cannot leave a tool describing the old one.
let app: TestApp;
let tools: Awaited<ReturnType<Client['listTools']>>['tools'];

type Operation = {
  operationId: string;
  parameters?: { name: string; in: string; schema: unknown; required?: boolean }[];
  requestBody?: { content: { 'application/json': { schema: { $ref: string } } } };
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};

/** The tool of each operation, and the fields the tool sets itself (not the agent). */
const TOOL_OPERATIONS: Record<string, { operation: string; own?: string[]; omitted?: string[] }> = {
  propose_action: { operation: 'actions.propose' },
  get_action: { operation: 'actions.get' },
  wait_for_decision: { operation: 'actions.get', own: ['timeout_seconds'] },
  execute_action: { operation: 'actions.execute', omitted: ['approver_assertion'] },
  list_my_actions: {
    operation: 'actions.list',
    omitted: ['cursor', 'proposed_by', 'awaiting_me'],
  },
  list_world_objects: { operation: 'worlds.objects.list', omitted: ['cursor'] },
  get_world_object: { operation: 'worlds.objects.get' },
};

beforeAll(async () => {
  app = await startTestApp('mcp_schemas');
  const server = createGovernedMcpServer({ baseUrl: app.url, apiKey: 'unused', version: '0' });
  const [client, served] = InMemoryTransport.createLinkedPair();
  await server.connect(served);
  const agent = new Client({ name: 'schema-check', version: '0' });
  await agent.connect(client);
  tools = (await agent.listTools()).tools;
  await agent.close();
});
afterAll(() => app.close());

/** The document's schemas with their component refs as the tools carry them (`$defs`). */
const asDefs = (schema: unknown): unknown =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"#/$defs/'));

it('gives every tool an operation of the served document, and its fields the document’s schemas', async () => {
  const document = (await call<Document>(app.url, 'GET', '/openapi.json')).body;
  const operations = new Map<string, Operation>();
  for (const methods of Object.values(document.paths)) {
    for (const operation of Object.values(methods))
      operations.set(operation.operationId, operation);
  }
  expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(TOOL_OPERATIONS).sort());
  for (const tool of tools) {
    const { operation: id, own = [], omitted = [] } = TOOL_OPERATIONS[tool.name];
    const operation = operations.get(id)!;
    const expected: Record<string, unknown> = {};
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in === 'path' || parameter.in === 'query') {
        expected[parameter.name] = parameter.schema;
      }
    }
    const ref = operation.requestBody?.content['application/json'].schema.$ref;
    const body = ref ? document.components.schemas[ref.split('/').pop()!] : undefined;
    Object.assign(expected, (body?.['properties'] ?? {}) as Record<string, unknown>);
    for (const name of omitted) delete expected[name];
    const properties = { ...(tool.inputSchema['properties'] as Record<string, unknown>) };
    for (const name of own) delete properties[name];
    expect({ tool: tool.name, properties }).toEqual({
      tool: tool.name,
      properties: asDefs(expected),
    });
    // Every component a field refers to is carried along, as the document has it.
    const defs = (tool.inputSchema['$defs'] ?? {}) as Record<string, unknown>;
    for (const [name, schema] of Object.entries(defs)) {
      expect(schema).toEqual(asDefs(document.components.schemas[name]));
    }
    for (const name of JSON.stringify(tool.inputSchema).matchAll(/"#\/\$defs\/(\w+)"/g)) {
      expect(defs).toHaveProperty(name[1]);
    }
  }
  // The proposal's own rules (a kind's required fields) come along too.
  const propose = tools.find((t) => t.name === 'propose_action')!;
  expect(propose.inputSchema['allOf']).toEqual(
    asDefs(document.components.schemas['ExternalActionRequest']['allOf']),
  );
});

it('never sends a decision or an approver key request, whatever the key could do', async () => {
  const sent: string[] = [];
  const fetch = refusingDecisions(async (request) => {
    sent.push(`${request.method} ${request.url}`);
    return new Response('{}', { headers: { 'Content-Type': 'application/json' } });
  });
  for (const path of [
    '/v1/external-actions/act_0123456789/approve',
    '/v1/external-actions/act_0123456789/reject',
    '/v1/external-actions/act_0123456789/challenge',
    '/v1/principals/me/keys/register',
    '/v1/admin/keys/create',
  ]) {
    await expect(
      fetch(new Request(`${app.url}${path}`, { method: 'POST' })),
    ).rejects.toBeInstanceOf(ToolRefusal);
  }
  await fetch(
    new Request(`${app.url}/v1/external-actions/act_0123456789/execute`, { method: 'POST' }),
  );
  expect(sent).toEqual([`POST ${app.url}/v1/external-actions/act_0123456789/execute`]);
});
