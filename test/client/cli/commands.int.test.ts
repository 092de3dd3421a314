import { mkdtempSync, readFileSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, GovernedApiError, type GovernedClient } from '../../../packages/client/src';
import type { Action, Deployment, WhoAmI } from '../../../packages/client/src/cli/types';
import { buildClientPackage, jsonOf, runGr } from '../../helpers/cli';
import { createTestKey, type TestKey } from '../../helpers/keys';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { startTestWorker, type TestWorker } from '../../helpers/test-worker';

// `gr`, built from the sources and run as a process against the real service (FerretDB,
// Temporal, a worker): what an operator types, what a script reads, and how it fails.

let app: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let approver: TestKey;
let asProposer: GovernedClient;
let asApprover: GovernedClient;
let noConfig: string;

beforeAll(async () => {
  buildClientPackage();
  app = await startTestApp('cli');
  worker = await startTestWorker(app.deps);
  proposer = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2, name: 'Ada' });
  approver = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2, name: 'Ben' });
  asProposer = createClient({ baseUrl: app.url, apiKey: proposer.apiKey });
  asApprover = createClient({ baseUrl: app.url, apiKey: approver.apiKey });
  noConfig = mkdtempSync(join(tmpdir(), 'gr-none-'));
}, 120_000);
afterAll(async () => {
  await worker.stop();
  await app.close();
});

/** `gr` as `who`, configured by GR_URL / GR_API_KEY, with an empty config home. */
const gr = (who: TestKey, ...args: string[]) =>
  runGr(args, {
    GR_URL: app.url,
    GR_API_KEY: who.apiKey,
    XDG_CONFIG_HOME: noConfig,
    HOME: noConfig,
  });

/** Ada proposes setting a demo world object's status; answers the action awaiting approval. */
async function proposeWorldChange(status: string): Promise<Action> {
  const { data: objects } = await asProposer.GET('/v1/worlds/objects', {
    params: { query: { limit: 1 } },
  });
  const { data } = await asProposer.POST('/v1/external-actions/propose', {
    body: {
      action_kind: 'world.update_object',
      target: { world_object_ref: objects!.payload.items[0].object_id },
      parameters: { patch: { status } },
      bounds: { allowed_fields: ['status'] },
      reason: `mark it ${status}`,
    },
  });
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const { data: read } = await asProposer.GET('/v1/external-actions/{action_id}', {
      params: { path: { action_id: data!.payload.action_id } },
    });
    if (read!.payload.status === 'awaiting_approval') return read!.payload;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the proposal never reached awaiting_approval');
}

describe('keys whoami and login', () => {
  it('says who the key is, for people and as JSON', async () => {
    const human = await gr(approver, 'keys', 'whoami');
    expect(human).toMatchObject({ code: 0, stderr: '' });
    expect(human.stdout).toContain(`Ben <`);
    expect(human.stdout).toContain(approver.principalId);
    expect(human.stdout).toMatch(/families\s+.*external_action_execution/);
    const json = jsonOf<WhoAmI>(await gr(approver, 'keys', 'whoami', '--json'));
    expect(json).toMatchObject({
      key: { key_id: approver.keyId, entitlement: 'strategic' },
      principal: { principal_id: approver.principalId, name: 'Ben' },
    });
  });

  it('login checks the key, writes the profile 0600 and later commands use it', async () => {
    const home = mkdtempSync(join(tmpdir(), 'gr-home-'));
    const env = { XDG_CONFIG_HOME: join(home, 'xdg'), HOME: home };
    const path = join(home, 'xdg', 'governed-runtime', 'config.json');
    const refused = await runGr(['login', '--url', app.url, '--key', 'grk_nope'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('malformed API key');
    expect(existsSync(path)).toBe(false);

    const login = await runGr(
      ['login', '--url', app.url, '--key', approver.apiKey, '--profile', 'ops'],
      env,
    );
    expect(login).toMatchObject({ code: 0, stderr: '' });
    expect(login.stdout).toContain(`as Ben (${approver.principalId}`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      current: 'ops',
      profiles: { ops: { url: app.url, key: approver.apiKey } },
    });
    const viaProfile = jsonOf<WhoAmI>(await runGr(['keys', 'whoami', '--json'], env));
    expect(viaProfile.key.key_id).toBe(approver.keyId);
    // The flag wins over the profile.
    const viaFlag = await runGr(['keys', 'whoami', '--json', '--key', proposer.apiKey], env);
    expect(jsonOf<WhoAmI>(viaFlag).key.key_id).toBe(proposer.keyId);
    const unknown = await runGr(['keys', 'whoami', '--profile', 'staging'], env);
    expect(unknown).toMatchObject({ code: 1, stderr: `gr: no profile staging in ${path}\n` });
  });
});

describe('actions', () => {
  it('lists what awaits me, shows the plan, approves bound to its digest, executes, watches', async () => {
    const proposed = await proposeWorldChange('reviewed');
    const id = proposed.action_id;
    const digest = proposed.dry_run!.plan_digest;

    const mine = jsonOf<{ action_id: string }[]>(
      await gr(approver, 'actions', 'list', '--awaiting-me', '--json', '--limit', '500'),
    );
    expect(mine.map((a) => a.action_id)).toContain(id);
    const notProposers = jsonOf<{ action_id: string }[]>(
      await gr(proposer, 'actions', 'list', '--awaiting-me', '--json', '--limit', '500'),
    );
    expect(notProposers.map((a) => a.action_id)).not.toContain(id);
    const table = await gr(approver, 'actions', 'list', '--status', 'awaiting_approval');
    expect(table.stdout.split('\n')[0]).toMatch(/^ACTION\s+KIND\s+STATUS\s+APPROVALS/);
    expect(table.stdout).toMatch(new RegExp(`${id}\\s+world.update_object\\s+awaiting_approval`));

    const shown = await gr(approver, 'actions', 'show', id);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`Plan ${digest}`);
    expect(shown.stdout).toContain('status: ');
    expect(shown.stdout).toContain('→ "reviewed"');
    expect(shown.stdout).toContain('Approvals 0/1');
    expect(shown.stdout).toContain('you may     approve, reject');
    expect(shown.stdout).toContain(`temporal    ${proposed.links.temporal_ui}`);
    expect(shown.stdout).not.toContain('\u001b['); // no colour when not a terminal
    expect(jsonOf<Action>(await gr(approver, 'actions', 'show', id, '--json'))).toMatchObject({
      action_id: id,
      dry_run: { plan_digest: digest },
    });

    const approved = await gr(approver, 'actions', 'approve', id, '--reason', 'looks right');
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(`bound to plan ${digest}`);
    expect(approved.stdout).toContain(`${id} approved`);
    const { data } = await asApprover.GET('/v1/external-actions/{action_id}', {
      params: { path: { action_id: id } },
    });
    expect(data!.payload.approvals).toEqual([
      expect.objectContaining({
        principal_id: approver.principalId,
        reason: 'looks right',
        plan_digest: digest,
      }),
    ]);

    const executed = jsonOf<Action>(await gr(approver, 'actions', 'execute', id, '--json'));
    expect(['executing', 'executed']).toContain(executed.status);
    const watched = await gr(
      approver,
      'actions',
      'watch',
      id,
      '--interval',
      '0.2',
      '--timeout',
      '30',
    );
    expect(watched.code).toBe(0);
    expect(watched.stdout).toMatch(/executed {2}approvals 1/);
    const final = jsonOf<Action>(await gr(approver, 'actions', 'watch', id, '--json'));
    expect(final).toMatchObject({ action_id: id, status: 'executed' });
  });

  it('rejects, and watch exits 3 naming how it ended', async () => {
    const { action_id: id } = await proposeWorldChange('rejected-one');
    const rejected = jsonOf<Action>(
      await gr(approver, 'actions', 'reject', id, '--reason', 'not now', '--json'),
    );
    expect(rejected).toMatchObject({ status: 'rejected' });
    const watched = await gr(approver, 'actions', 'watch', id, '--interval', '0.2');
    expect(watched).toMatchObject({ code: 3, stderr: `gr: action ${id} ended rejected\n` });
  });

  it("fails with exit 1 and the service's own message", async () => {
    const { action_id: id } = await proposeWorldChange('self-approved');
    const expected = await asProposer
      .POST('/v1/external-actions/{action_id}/approve', {
        params: { path: { action_id: id } },
        body: { reason: 'mine' },
      })
      .then(
        () => undefined,
        (error: GovernedApiError) => error,
      );
    expect(expected).toBeInstanceOf(GovernedApiError);
    const own = await gr(proposer, 'actions', 'approve', id, '--reason', 'mine');
    expect(own.code).toBe(1);
    expect(own.stderr).toContain(
      `gr: ${expected!.message} (${expected!.code}, HTTP ${expected!.status}`,
    );

    const missing = await gr(
      approver,
      'actions',
      'show',
      'act_01JZZZZZZZZZZZZZZZZZZZZZZZ',
      '--json',
    );
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(JSON.parse(missing.stderr)).toMatchObject({
      error: { status: 404, code: 'not_found', request_id: expect.any(String) as string },
    });
    const badStatus = await gr(approver, 'actions', 'list', '--status', 'sleeping');
    expect(badStatus.code).toBe(1);
    expect(badStatus.stderr).toMatch(/^gr: .*\(validation_error, HTTP 422/);
    expect(badStatus.stderr).toContain('status');
  });

  it('says what is missing without a key, and exits 2 on a usage mistake', async () => {
    const bare = await runGr(['actions', 'list'], { XDG_CONFIG_HOME: noConfig, HOME: noConfig });
    expect(bare).toMatchObject({
      code: 1,
      stderr: 'gr: no service URL: pass --url, set GR_URL or run gr login\n',
    });
    const noKey = await runGr(['actions', 'list', '--url', app.url], { XDG_CONFIG_HOME: noConfig });
    expect(noKey.stderr).toBe('gr: no API key: pass --key, set GR_API_KEY or run gr login\n');
    expect((await gr(approver, 'actions', 'list', '--limit', 'lots')).code).toBe(2);
    expect((await gr(approver, 'actions', 'frobnicate')).code).toBe(2);
  });
});

describe('deployments', () => {
  it('watches a deployment through its stages to ready, then lists and shows it', async () => {
    const { data } = await asProposer.POST('/v1/substrates/deploy', {
      body: {
        spec: {
          scaffold: 'life-lattice',
          params: { width: 16, height: 16, rule: 'B3/S23', ticks: 40, pattern: 'glider' },
        },
      },
    });
    const id = data!.payload.deployment_id;
    const watched = await gr(
      proposer,
      'deployments',
      'watch',
      id,
      '--interval',
      '0.1',
      '--timeout',
      '60',
    );
    expect(watched).toMatchObject({ code: 0, stderr: '' });
    const lines = watched.stdout.trim().split('\n');
    expect(lines.at(-2)).toMatch(/^\[█{24}\] ready \(6\/6\) tick 40\/40$/);
    expect(lines.at(-1)).toBe(`${id} ready`);

    const listed = jsonOf<Deployment[]>(await gr(proposer, 'deployments', 'list', '--json'));
    expect(listed.map((d) => d.deployment_id)).toContain(id);
    // Each names who created it: by name in the list, name and id in show.
    const table = (await gr(proposer, 'deployments', 'list')).stdout.split('\n');
    expect(table[0]).toMatch(/\sCREATED\s+BY$/);
    expect(table.find((line) => line.startsWith(id))).toMatch(/\sAda$/);
    const shown = await gr(proposer, 'deployments', 'show', id);
    expect(shown.stdout).toContain(`${id}  ready`);
    expect(shown.stdout).toMatch(
      new RegExp(`^  created .* by Ada \\(${proposer.principalId}\\)$`, 'm'),
    );
    for (const stage of [
      'validating',
      'compiling',
      'deploying',
      'observing',
      'assaying',
      'ready',
    ]) {
      expect(shown.stdout).toMatch(new RegExp(`^  ${stage}\\s+\\d{4}-`, 'm'));
    }
    expect(
      jsonOf<Deployment>(await gr(proposer, 'deployments', 'show', id, '--json')),
    ).toMatchObject({
      deployment_id: id,
      status: 'ready',
    });
  });
});
