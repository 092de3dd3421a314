import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ApprovalTimeoutError,
  createClient,
  GovernedApiError,
  requireApproval,
  ServiceUnreachableError,
  type GovernedClient,
} from '../../packages/client/src';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// The typed client against the real service (FerretDB, Temporal, a worker).

let app: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let approver: TestKey;
let asProposer: GovernedClient;
let asApprover: GovernedClient;
const sent: Request[] = [];

beforeAll(async () => {
  app = await startTestApp('client');
  worker = await startTestWorker(app.deps);
  proposer = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  approver = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  const recording = (request: Request) => {
    sent.push(request.clone());
    return fetch(request);
  };
  asProposer = createClient({ baseUrl: app.url, apiKey: proposer.apiKey, fetch: recording });
  asApprover = createClient({ baseUrl: app.url, apiKey: approver.apiKey });
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const notify = (message: string) =>
  ({ action_kind: 'notify', target: {}, parameters: { message }, bounds: {} }) as const;

describe('requests and errors', () => {
  it('sends the key, types the answer, and adds an Idempotency-Key to a POST that takes one', async () => {
    sent.length = 0;
    const { data } = await asProposer.POST('/v1/external-actions/propose', {
      body: notify('typed'),
    });
    expect(data!.payload).toMatchObject({ action_kind: 'notify', status: 'awaiting_approval' });
    const [propose] = sent;
    expect(propose.headers.get('X-API-Key')).toBe(proposer.apiKey);
    expect(propose.headers.get('Idempotency-Key')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('throws the error envelope of a non-2xx answer', async () => {
    const missing = asProposer.GET('/v1/external-actions/{action_id}', {
      params: { path: { action_id: 'act_01JZZZZZZZZZZZZZZZZZZZZZZZ' } },
    });
    await expect(missing).rejects.toBeInstanceOf(GovernedApiError);
    await expect(missing).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
      requestId: expect.any(String) as string,
    });
  });

  it('throws ServiceUnreachableError, saying why in words, when nothing answers', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const nowhere = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'grk_any' });
    const refused = nowhere.GET('/v1/principals/me');
    await expect(refused).rejects.toBeInstanceOf(ServiceUnreachableError);
    await expect(refused).rejects.toMatchObject({
      message: `cannot reach http://127.0.0.1:${port}/: connection refused`,
      url: `http://127.0.0.1:${port}/`,
      reason: 'connection refused',
      cause: expect.objectContaining({ message: 'fetch failed' }) as Error,
    });
  });
});

describe('paginate', () => {
  it('walks every page of a list, following next_cursor', async () => {
    const everything: string[] = [];
    for await (const object of asProposer.paginate('/v1/worlds/objects', { query: { limit: 2 } })) {
      everything.push(object.object_id);
    }
    const { data } = await asProposer.GET('/v1/worlds/objects', {
      params: { query: { limit: 500 } },
    });
    expect(everything.length).toBeGreaterThan(2);
    expect(everything).toEqual(data!.payload.items.map((o) => o.object_id));
  });
});

describe('requireApproval', () => {
  it('proposes, waits while a person approves, executes, and answers the executed action', async () => {
    const waiting = requireApproval(asProposer, notify('needs ben'), { pollMs: 100 });
    const awaiting = await firstAwaiting('needs ben');
    await asApprover.POST('/v1/external-actions/{action_id}/approve', {
      params: { path: { action_id: awaiting } },
      body: { reason: 'fine' },
    });
    const action = await waiting;
    expect(action).toMatchObject({ action_id: awaiting, status: 'executed' });
  });

  it('answers a rejected action as it ended', async () => {
    const waiting = requireApproval(asProposer, notify('not today'), { pollMs: 100 });
    const awaiting = await firstAwaiting('not today');
    await asApprover.POST('/v1/external-actions/{action_id}/reject', {
      params: { path: { action_id: awaiting } },
      body: { reason: 'no' },
    });
    await expect(waiting).resolves.toMatchObject({ action_id: awaiting, status: 'rejected' });
  });

  it('gives up waiting after timeoutMs, naming the action as it stood', async () => {
    const waiting = requireApproval(asProposer, notify('nobody looks'), {
      timeoutMs: 300,
      pollMs: 100,
    });
    await expect(waiting).rejects.toBeInstanceOf(ApprovalTimeoutError);
    await expect(waiting).rejects.toMatchObject({ action: { status: 'awaiting_approval' } });
  });

  it('stops waiting when its signal aborts', async () => {
    const controller = new AbortController();
    const waiting = requireApproval(asProposer, notify('aborted wait'), {
      pollMs: 5_000,
      signal: controller.signal,
    });
    await firstAwaiting('aborted wait');
    controller.abort(new Error('caller gave up'));
    await expect(waiting).rejects.toThrow('caller gave up');
  });
});

/** The id of the proposer's action with this message, once the service lists it. */
async function firstAwaiting(message: string): Promise<string> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    for await (const action of asApprover.paginate('/v1/external-actions', {
      query: { status: 'awaiting_approval', limit: 100 },
    })) {
      const found = await asApprover.GET('/v1/external-actions/{action_id}', {
        params: { path: { action_id: action.action_id } },
      });
      const parameters = found.data!.payload.parameters as { message?: string };
      if (parameters.message === message) return action.action_id;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no action awaiting approval with message ${message}`);
}

describe('retries', () => {
  let server: Server;
  let baseUrl: string;
  const answers: { status: number; headers?: Record<string, string> }[] = [];
  const seen: { method: string; key: string | undefined }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ method: req.method!, key: req.headers['idempotency-key'] as string | undefined });
      const answer = answers.shift() ?? { status: 200 };
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(
        answer.status === 200
          ? JSON.stringify({ ok: true, payload: { status: 'ok' } })
          : JSON.stringify({
              ok: false,
              error: { code: 'unavailable', message: 'busy', request_id: 'r' },
              detail: 'busy',
            }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    answers.length = 0;
    seen.length = 0;
  });

  it('retries 503 and 429 after the Retry-After they name, then answers', async () => {
    answers.push(
      { status: 503, headers: { 'Retry-After': '1' } },
      { status: 429, headers: { 'Retry-After': '0' } },
    );
    const client = createClient({ baseUrl, apiKey: 'k' });
    const started = Date.now();
    const { data } = await client.GET('/healthz');
    expect(data).toMatchObject({ ok: true });
    expect(seen).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('retries an idempotent POST with the same key, and stops after its retries', async () => {
    answers.push({ status: 503 }, { status: 503 }, { status: 503 });
    const client = createClient({ baseUrl, apiKey: 'k', retries: 2, baseDelayMs: 10 });
    const post = client.POST('/v1/external-actions/propose', { body: notify('retried') });
    await expect(post).rejects.toMatchObject({ status: 503, code: 'unavailable' });
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.key)).size).toBe(1);
    expect(seen[0].key).toBeDefined();
  });

  it('never retries a POST that takes no Idempotency-Key', async () => {
    answers.push({ status: 503 });
    const client = createClient({ baseUrl, apiKey: 'k', baseDelayMs: 10 });
    const post = client.POST('/v1/external-actions/{action_id}/approve', {
      params: { path: { action_id: 'act_01JZZZZZZZZZZZZZZZZZZZZZZZ' } },
      body: {},
    });
    await expect(post).rejects.toMatchObject({ status: 503 });
    expect(seen).toEqual([{ method: 'POST', key: undefined }]);
  });
});
