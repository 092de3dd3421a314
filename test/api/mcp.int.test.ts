import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import {
  callTool,
  decideOverHttp,
  draftDocument,
  mcpOverHttp,
  reviewProposal,
} from '../helpers/mcp';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Issue 45: the MCP server over Streamable HTTP at /mcp, with the SDK's own client, against
// the real stack. The agent is ada's key; ben (and cat) are the people who decide.
let app: TestApp;
let worker: TestWorker;
let ada: TestKey;
let ben: TestKey;
let agent: Client;
/** An action left to expire, proposed first (the shortest window is 60 s). */
let expiring: Promise<string>;

const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;

beforeAll(async () => {
  app = await startTestApp('mcp');
  worker = await startTestWorker(app.deps);
  [ada, ben] = await Promise.all([createTestKey(app, strategic), createTestKey(app, strategic)]);
  agent = await mcpOverHttp(app, ada);
  expiring = draftDocument(app).then(async (objectId) => {
    const proposed = await callTool(agent, 'propose_action', {
      ...reviewProposal(objectId, { expires_in_seconds: 60 }),
    });
    return String(proposed.structured['action_id']);
  });
  expiring.catch(() => undefined); // awaited by the expiry test
});
afterAll(async () => {
  await agent?.close();
  await worker.stop();
  await app.close();
});

const actionOverHttp = async (id: string, key = ben) =>
  (
    await call<{ payload: { status: string; approvals: unknown[] } }>(
      app.url,
      'GET',
      `/v1/external-actions/${id}`,
      { key: key.apiKey },
    )
  ).body.payload;

it('lists the tools, none of which decides', async () => {
  const { tools } = await agent.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual([
    'execute_action',
    'get_action',
    'get_world_object',
    'list_my_actions',
    'list_world_objects',
    'propose_action',
    'wait_for_decision',
  ]);
  for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
  expect(tools.find((t) => t.name === 'get_action')?.annotations?.readOnlyHint).toBe(true);
});

it('proposes, waits while ben approves over HTTP, executes, and the world object changes', async () => {
  const objectId = await draftDocument(app);
  const proposed = await callTool(agent, 'propose_action', reviewProposal(objectId));
  expect(proposed.isError).toBe(false);
  const id = String(proposed.structured['action_id']);
  expect(proposed.structured['status']).toBe('awaiting_approval');
  // The plan as people read it: the change, who may approve, the window, the Temporal link.
  expect(proposed.text).toContain('status: "draft" → "reviewed"');
  expect(proposed.text).toContain('Who may approve: 1 approval(s) from anyone but the proposer');
  expect(proposed.text).toContain('expires');
  expect(proposed.text).toContain(`action-${id}`);

  const progress: { progress: number; message?: string }[] = [];
  let reported!: () => void;
  const firstReport = new Promise<void>((resolve) => (reported = resolve));
  const waiting = callTool(
    agent,
    'wait_for_decision',
    { action_id: id, timeout_seconds: 120 },
    {
      onprogress: (p) => {
        progress.push(p);
        reported();
      },
      timeout: 150_000,
    },
  );
  // Ben decides once the wait has reported (it is waiting), or at once if it never does.
  await Promise.race([firstReport, waiting]);
  expect(await decideOverHttp(app, ben, id, 'approve', 'looks right')).toBe(200);
  const decided = await waiting;
  expect(decided.isError).toBe(false);
  expect(decided.structured['decision']).toBe('approved');
  expect(decided.text).toMatch(/^APPROVED by .*"looks right"/);
  expect(progress[0].message).toBe('awaiting_approval: 0 approval(s) so far');
  // Progress grows with each notification, as the protocol requires.
  const values = progress.map((p) => p.progress);
  expect(values).toEqual([...new Set(values)].sort((a, b) => a - b));

  const executed = await callTool(agent, 'execute_action', { action_id: id });
  expect(executed.isError).toBe(false);
  expect(executed.structured['status']).toBe('executed');
  const object = await callTool(agent, 'get_world_object', { object_id: objectId });
  expect(object.text).toContain('"status":"reviewed"');
  const stored = await app.deps.repos.worldObjects.findById(objectId);
  expect(stored?.attributes['status']).toBe('reviewed');
}, 180_000);

it('reports a rejection with its reason, and refuses to execute it', async () => {
  const objectId = await draftDocument(app);
  const id = String(
    (await callTool(agent, 'propose_action', reviewProposal(objectId))).structured['action_id'],
  );
  expect(await decideOverHttp(app, ben, id, 'reject', 'not this quarter')).toBe(200);
  const decided = await callTool(agent, 'wait_for_decision', {
    action_id: id,
    timeout_seconds: 30,
  });
  expect(decided.structured['decision']).toBe('rejected');
  expect(decided.text).toContain('REJECTED');
  expect(decided.text).toContain('"not this quarter"');
  const executed = await callTool(agent, 'execute_action', { action_id: id });
  expect(executed.isError).toBe(true);
  expect(executed.text).toMatch(/^The service refused: .*rejected.*\(invalid_state, request req_/);
  expect(executed.text).not.toMatch(/at .*\.(js|ts):\d+/); // no stack
  expect((await app.deps.repos.worldObjects.findById(objectId))?.attributes['status']).toBe(
    'draft',
  );
});

it('refuses what only people do: there is no approve tool, and the key cannot approve its own action', async () => {
  const objectId = await draftDocument(app);
  const id = String(
    (await callTool(agent, 'propose_action', reviewProposal(objectId))).structured['action_id'],
  );
  const approve = await callTool(agent, 'approve_action', { action_id: id });
  expect(approve.isError).toBe(true);
  expect(approve.text).toContain("approving and rejecting are people's decisions");
  // The agent's key itself, straight at the API: a proposer never approves their own action.
  expect(await decideOverHttp(app, ada, id, 'approve', 'self')).toBe(403);
  expect(await actionOverHttp(id)).toMatchObject({ status: 'awaiting_approval', approvals: [] });
});

it('answers bad input with a tool error naming the field, and stores nothing', async () => {
  const objectId = await draftDocument(app);
  const before = await app.deps.db.collection('external_actions').countDocuments();
  const bad = await callTool(agent, 'propose_action', {
    action_kind: 'world.update_object',
    target: { world_object_ref: objectId },
    parameters: {},
    bounds: { allowed_fields: ['status'] },
  });
  expect(bad.isError).toBe(true);
  expect(bad.text).toContain('nothing was stored');
  expect(bad.text).toContain('parameters');
  const unknown = await callTool(agent, 'get_action', { action_id: 'not-an-id' });
  expect(unknown.isError).toBe(true);
  expect(unknown.text).toContain('not_found');
  const wait = await callTool(agent, 'wait_for_decision', {
    action_id: 'act_0000000000',
    timeout_seconds: 0,
  });
  expect(wait).toMatchObject({ isError: true });
  expect(wait.text).toContain('timeout_seconds must be');
  expect(await app.deps.db.collection('external_actions').countDocuments()).toBe(before);
});

it('refuses a plan the policy denies as a tool error saying what a person must do', async () => {
  const objectId = await draftDocument(app);
  const denied = await callTool(agent, 'propose_action', {
    ...reviewProposal(objectId),
    parameters: { patch: { owner: 'mallory' } },
  });
  expect(denied.isError).toBe(true);
  expect(denied.structured['status']).toBe('dry_run_failed');
  expect(denied.text).toMatch(/dry_run_failed; nothing will be changed/);
  expect(denied.text).toContain('ask a person');
});

it('keeps an action waiting when the agent goes away mid-wait, and a new session picks it up', async () => {
  const objectId = await draftDocument(app);
  const id = String(
    (await callTool(agent, 'propose_action', reviewProposal(objectId))).structured['action_id'],
  );
  const leaving = await mcpOverHttp(app, ada);
  let reported!: () => void;
  const waitingNow = new Promise<void>((resolve) => (reported = resolve));
  const abandoned = callTool(
    leaving,
    'wait_for_decision',
    { action_id: id, timeout_seconds: 20 },
    { onprogress: () => reported() },
  ).catch((error: unknown) => error);
  await waitingNow;
  await leaving.close();
  expect(await abandoned).toBeInstanceOf(Error);
  expect(await actionOverHttp(id)).toMatchObject({ status: 'awaiting_approval' });

  expect(await decideOverHttp(app, ben, id, 'approve', 'fine')).toBe(200);
  const back = await mcpOverHttp(app, ada);
  try {
    const decided = await callTool(back, 'wait_for_decision', { action_id: id });
    expect(decided.structured['decision']).toBe('approved');
    expect((await callTool(back, 'execute_action', { action_id: id })).structured['status']).toBe(
      'executed',
    );
  } finally {
    await back.close();
  }
});

it('stops a wait the agent cancels, and the action goes on waiting', async () => {
  const objectId = await draftDocument(app);
  const id = String(
    (await callTool(agent, 'propose_action', reviewProposal(objectId))).structured['action_id'],
  );
  const cancel = new AbortController();
  const cancelled = callTool(
    agent,
    'wait_for_decision',
    { action_id: id, timeout_seconds: 60 },
    { signal: cancel.signal, onprogress: () => cancel.abort('the agent moved on') },
  ).catch((error: unknown) => error);
  expect(String(await cancelled)).toContain('the agent moved on');
  // The session goes on serving, and the action is where it was.
  const read = await callTool(agent, 'get_action', { action_id: id });
  expect(read.structured).toMatchObject({ status: 'awaiting_approval', approvals: 0 });
});

it('announces a subscribed action when its status changes', async () => {
  const objectId = await draftDocument(app);
  const id = String(
    (await callTool(agent, 'propose_action', reviewProposal(objectId))).structured['action_id'],
  );
  const uri = `governed://actions/${id}`;
  const updated = new Promise<string>((resolve) =>
    agent.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) =>
      resolve(note.params.uri),
    ),
  );
  await agent.subscribeResource({ uri });
  expect(await decideOverHttp(app, ben, id, 'approve', 'ok')).toBe(200);
  expect(await updated).toBe(uri);
  const read = await agent.readResource({ uri });
  expect((read.contents[0] as { text: string }).text).toMatch(new RegExp(`^${id} is approved`));
  await agent.unsubscribeResource({ uri });
});

it('keeps a session to the key that opened it, and /mcp to keys', async () => {
  const sessionId = (agent.transport as { sessionId?: string }).sessionId!;
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  const headers = { Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sessionId };
  const other = await call(app.url, 'POST', '/mcp', { key: ben.apiKey, headers, body: list });
  expect(other.status).toBe(404);
  const anonymous = await call(app.url, 'POST', '/mcp', { headers, body: list });
  expect(anonymous.status).toBe(401);
});

it('tells a key whose family falls short what a person must do', async () => {
  const sandbox = await createTestKey(app, { entitlement: 'sandbox', accessLayer: 0 });
  const limited = await mcpOverHttp(app, sandbox);
  try {
    const refused = await callTool(limited, 'propose_action', reviewProposal('obj_0000000000'));
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('external_action_proposal');
    expect(refused.text).toContain('A person (an operator) must issue this agent a key');
  } finally {
    await limited.close();
  }
});

it('answers an action that nobody decided as expired', async () => {
  const id = await expiring;
  const decided = await callTool(
    agent,
    'wait_for_decision',
    { action_id: id, timeout_seconds: 120 },
    { timeout: 150_000 },
  );
  expect(decided.structured['decision']).toBe('expired');
  expect(decided.text).toMatch(/^EXPIRED: nobody decided within its window/);
}, 180_000);
