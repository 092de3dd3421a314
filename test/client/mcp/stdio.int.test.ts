import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { buildClientPackage, GR_BIN, runGr } from '../../helpers/cli';
import { createTestKey, type TestKey } from '../../helpers/keys';
import { callTool, draftDocument, reviewProposal } from '../../helpers/mcp';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { startTestWorker, type TestWorker } from '../../helpers/test-worker';

// Issue 45: `gr mcp`, the MCP server on stdio, started by the SDK's own client as an agent
// host starts it, configured like every `gr` command (GR_URL / GR_API_KEY). The session of
// docs/agents.md: the agent proposes, ben approves with `gr`, the agent executes.
let app: TestApp;
let worker: TestWorker;
let ada: TestKey;
let ben: TestKey;
let agent: Client | undefined;
let home: string;

beforeAll(async () => {
  buildClientPackage();
  app = await startTestApp('mcp_stdio');
  worker = await startTestWorker(app.deps);
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  ada = await createTestKey(app, { ...strategic, name: 'Ada agent' });
  ben = await createTestKey(app, { ...strategic, name: 'Ben' });
  home = mkdtempSync(join(tmpdir(), 'gr-mcp-'));
}, 120_000);
afterAll(async () => {
  await agent?.close();
  await worker.stop();
  await app.close();
});

it('refuses to start without a service URL, naming what to set', async () => {
  const bare = await runGr(['mcp'], { HOME: home, XDG_CONFIG_HOME: home });
  expect(bare.code).toBe(1);
  expect(bare.stderr).toContain('no service URL: pass --url, set GR_URL or run gr login');
  expect(bare.stdout).toBe('');
});

it('serves a whole session on stdio: propose, ben approves with gr, execute', async () => {
  const host = new Client({ name: 'test-host', version: '1.0.0' });
  agent = host;
  await host.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [GR_BIN, 'mcp'],
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: home,
        XDG_CONFIG_HOME: home,
        GR_URL: app.url,
        GR_API_KEY: ada.apiKey,
      },
    }),
  );
  const { tools } = await host.listTools();
  expect(tools.map((t) => t.name)).toContain('propose_action');

  const objectId = await draftDocument(app, 'Hall lamp manual');
  const proposed = await callTool(host, 'propose_action', reviewProposal(objectId));
  expect(proposed.isError).toBe(false);
  const id = String(proposed.structured['action_id']);
  expect(proposed.text).toContain('status: "draft" → "reviewed" on document Hall lamp manual');

  const approved = await runGr(['actions', 'approve', id, '--reason', 'ok', '--yes'], {
    GR_URL: app.url,
    GR_API_KEY: ben.apiKey,
    HOME: home,
    XDG_CONFIG_HOME: home,
  });
  expect(approved.code).toBe(0);

  const decided = await callTool(host, 'wait_for_decision', { action_id: id });
  expect(decided.text).toMatch(/^APPROVED by Ben \(prn_\w+\): "ok"/);
  const executed = await callTool(host, 'execute_action', { action_id: id });
  expect(executed.structured['status']).toBe('executed');
  expect((await app.deps.repos.worldObjects.findById(objectId))?.attributes['status']).toBe(
    'reviewed',
  );
  const mine = await callTool(host, 'list_my_actions', { status: 'executed' });
  expect(mine.text).toContain(id);
}, 120_000);
