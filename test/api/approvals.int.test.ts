import { proposeUpdate } from '../helpers/actions';
import { newId } from '../../src/lib/ids';
import { storedIn } from '../helpers/collections';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// The approvals product (docs/approvals.md): the inbox of what awaits a principal, and approval
// rules that raise approvals, limit approvers, require reasons, wait and auto-execute.
interface Summary {
  action_id: string;
  status: string;
  reason: string | null;
  diff_summary: string | null;
  approvals: { principal_id: string }[];
  required_approvals: number;
  rule: { rule_id: string; version: number; name: string } | null;
  expires_at: string;
  executable_at: string | null;
  allowed: { approve: boolean; reject: boolean; execute: boolean };
}
interface Page<T> {
  items: T[];
  next_cursor: string | null;
}
interface Rule {
  rule_id: string;
  version: number;
  status: string;
}

let app: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let alice: TestKey;
let bob: TestKey;
let operator: TestKey;
beforeAll(async () => {
  app = await startTestApp('approvals');
  worker = await startTestWorker(app.deps);
  const strategic = { entitlement: 'strategic', accessLayer: 2 } as const;
  [proposer, alice, bob, operator] = await Promise.all([
    createTestKey(app, strategic),
    createTestKey(app, strategic),
    createTestKey(app, strategic),
    createTestKey(app, { ...strategic, role: 'operator' }),
  ]);
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const propose = (context: string) =>
  proposeUpdate(app, proposer, {
    patch: { status: 'published' },
    shared_context_id: context,
    reason: 'publish the runbook',
  });

const list = (key: TestKey, query: string) =>
  call<{ payload: Page<Summary> }>(app.url, 'GET', `/v1/external-actions?${query}`, {
    key: key.apiKey,
  });
const decide = (id: string, decision: string, key: TestKey, body: Record<string, unknown> = {}) =>
  call<{ payload: Summary; error?: { code: string; message: string } }>(
    app.url,
    'POST',
    `/v1/external-actions/${id}/${decision}`,
    { key: key.apiKey, body },
  );
const admin = <T>(method: 'GET' | 'POST', path: string, body?: Record<string, unknown>) =>
  call<{ payload: T }>(app.url, method, path, { key: app.adminKey, body });
const ids = (page: Page<Summary>) => page.items.map((item) => item.action_id);

describe('GET /v1/external-actions', () => {
  it('lists actions by current status, and the inbox of what each principal may approve', async () => {
    const context = `ctx-inbox-${newId('tsk')}`;
    const [first, second, third] = [
      await propose(context),
      await propose(context),
      await propose(context),
    ];
    expect((await decide(first, 'approve', alice)).status).toBe(200);
    expect((await decide(third, 'reject', bob, { reason: 'not now' })).status).toBe(200);

    const awaiting = await list(alice, `status=awaiting_approval&shared_context_id=${context}`);
    expect(ids(awaiting.body.payload)).toEqual([second]); // newest first, current status only
    const item = awaiting.body.payload.items[0];
    expect(item).toMatchObject({
      reason: 'publish the runbook',
      diff_summary: 'status: "draft" → "published"',
      approvals: [],
      required_approvals: 1,
      rule: null,
      allowed: { approve: true, reject: true, execute: false },
    });
    expect(Date.parse(item.expires_at)).toBeGreaterThan(Date.now());

    const all = await list(bob, `shared_context_id=${context}&limit=2`);
    expect(ids(all.body.payload)).toEqual([third, second]);
    const next = await list(
      bob,
      `shared_context_id=${context}&limit=2&cursor=${all.body.payload.next_cursor}`,
    );
    expect(ids(next.body.payload)).toEqual([first]);
    expect(next.body.payload.next_cursor).toBeNull();

    const inbox = async (key: TestKey) =>
      ids((await list(key, `awaiting_me=true&shared_context_id=${context}`)).body.payload);
    expect(await inbox(alice)).toEqual([second]); // `first` is approved; she approved it anyway
    expect(await inbox(bob)).toEqual([second]);
    expect(await inbox(proposer)).toEqual([]); // never one's own
    expect(
      ids(
        (await list(bob, `proposed_by=${proposer.principalId}&shared_context_id=${context}`)).body
          .payload,
      ),
    ).toEqual([third, second, first]);
  });

  it('refuses bad filters with 422 naming them', async () => {
    const res = await call<{ error: { code: string; detail: { loc: string[] }[] } }>(
      app.url,
      'GET',
      '/v1/external-actions?status=pending&proposed_by=nobody',
      { key: alice.apiKey },
    );
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toMatch(/status/);
    expect(JSON.stringify(res.body)).toMatch(/proposed_by/);
  });
});

describe('approval rules', () => {
  it('raise approvals, admit only their approvers, require a reason, and are recorded with their version', async () => {
    const context = `ctx-rule-${newId('tsk')}`;
    const created = await admin<Rule>('POST', '/v1/admin/approval-rules/create', {
      name: 'operators review runbooks',
      match: { action_kind: 'world.update_object', shared_context_id: context },
      required_approvals: 2,
      approver_roles: ['operator'],
      approver_principals: [bob.principalId],
      require_reason: true,
    });
    expect(created.status).toBe(201);
    const rule = created.body.payload;
    expect(rule).toMatchObject({ version: 1, status: 'active' });

    const id = await propose(context);
    const action = (await list(operator, `shared_context_id=${context}`)).body.payload.items[0];
    expect(action).toMatchObject({
      action_id: id,
      required_approvals: 2,
      rule: { rule_id: rule.rule_id, version: 1, name: 'operators review runbooks' },
    });

    const refused = await decide(id, 'approve', alice, { reason: 'fine' });
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toContain(rule.rule_id);
    expect(refused.body.error).toMatchObject({ rule_id: rule.rule_id });
    const noReason = await decide(id, 'approve', operator);
    expect(noReason.status).toBe(422);
    expect(JSON.stringify(noReason.body.error)).toMatch(
      /body.reason: approval rule .* requires a reason to approve/,
    );
    expect(
      (await list(alice, `awaiting_me=true&shared_context_id=${context}`)).body.payload.items,
    ).toEqual([]);
    expect(
      ids((await list(operator, `awaiting_me=true&shared_context_id=${context}`)).body.payload),
    ).toEqual([id]);
    expect(
      ids((await list(bob, `awaiting_me=true&shared_context_id=${context}`)).body.payload),
    ).toEqual([id]);

    expect((await decide(id, 'approve', operator, { reason: 'checked' })).status).toBe(200);
    const approved = await decide(id, 'approve', bob, { reason: 'checked too' });
    expect(approved.status).toBe(200);
    expect(approved.body.payload.status).toBe('approved');

    const suspended = await admin<{ item: Rule; previous_status: string }>(
      'POST',
      '/v1/admin/approval-rules/status',
      { rule_id: rule.rule_id, status: 'suspended' },
    );
    expect(suspended.body.payload).toMatchObject({
      item: { status: 'suspended', version: 2 },
      previous_status: 'active',
    });
    const later = await propose(context);
    const laterItem = (await list(alice, `shared_context_id=${context}&limit=1`)).body.payload
      .items[0];
    expect(laterItem).toMatchObject({ action_id: later, rule: null, required_approvals: 1 });

    const audit = await storedIn(app.deps.db).audit.find({ 'target.id': rule.rule_id }).toArray();
    expect(audit.map((row) => row.action).sort()).toEqual([
      'approval_rule.create',
      'approval_rule.status',
    ]);
    const listed = await admin<Page<Rule>>('GET', '/v1/admin/approval-rules?status=suspended');
    expect(listed.body.payload.items.map((r) => r.rule_id)).toContain(rule.rule_id);
  });

  it('hold execution for the wait after approval, then execute by themselves with auto_execute', async () => {
    const context = `ctx-wait-${newId('tsk')}`;
    await admin('POST', '/v1/admin/approval-rules/create', {
      name: 'cool-off',
      match: { shared_context_id: context },
      wait_seconds: 2,
      auto_execute: true,
    });
    const id = await propose(context);
    const approved = await decide(id, 'approve', alice);
    expect(approved.status).toBe(200);
    const early = await decide(id, 'execute', alice);
    expect(early.status).toBe(409);
    expect(early.body.error?.message).toMatch(/wait until/);

    let status = 'approved';
    for (let i = 0; i < 50 && status !== 'executed'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await list(alice, `shared_context_id=${context}`)).body.payload.items[0].status;
    }
    expect(status).toBe('executed');
    const item = (await list(alice, `shared_context_id=${context}`)).body.payload.items[0];
    const approvedAt = Date.parse(
      (
        await call<{ payload: { status_timestamps: Record<string, string> } }>(
          app.url,
          'GET',
          `/v1/external-actions/${id}`,
          { key: alice.apiKey },
        )
      ).body.payload.status_timestamps['approved'],
    );
    expect(Date.parse(item.executable_at!)).toBe(approvedAt + 2000);
  });

  it("refuses a malformed rule with 422, and any key but an operator's with 403", async () => {
    const res = await call<unknown>(app.url, 'POST', '/v1/admin/approval-rules/create', {
      key: app.adminKey,
      body: { name: 'bad', match: { kind: 'x' }, wait_seconds: -1 },
    });
    expect(res.status).toBe(422);
    const member = await call<unknown>(app.url, 'GET', '/v1/admin/approval-rules', {
      key: alice.apiKey,
    });
    expect(member.status).toBe(403);
  });
});
