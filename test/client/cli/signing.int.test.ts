import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { newId } from '../../../src/lib/ids';
import type { Action } from '../../../packages/client/src/cli/types';
import { proposeUpdate } from '../../helpers/actions';
import { newApproverKeyPair } from '../../helpers/approver-keys';
import { buildClientPackage, jsonOf, runGr } from '../../helpers/cli';
import { eventually } from '../../helpers/eventually';
import { call } from '../../helpers/http';
import { createTestKey, type TestKey } from '../../helpers/keys';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { startTestWorker, type TestWorker } from '../../helpers/test-worker';

// `gr` signing decisions with the approver's own key (docs/cli.md, "Signing decisions"),
// run as a process against the real service (FerretDB, Temporal, a worker) under a rule
// that requires approver signatures: keys made by the CLI, OpenSSH keys made by ssh-keygen,
// no key at all, a revoked key.

interface KeyView {
  key_id: string;
  status: string;
  fingerprint: string;
  public_key: string;
}

let app: TestApp;
let worker: TestWorker;
let ada: TestKey;
let ben: TestKey;
let cy: TestKey;
let ruleId: string;
const context = `ctx-cli-signed-${newId('tsk')}`;

beforeAll(async () => {
  buildClientPackage();
  app = await startTestApp('cli-signing');
  worker = await startTestWorker(app.deps);
  ada = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2, name: 'Ada' });
  ben = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2, name: 'Ben' });
  cy = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2, name: 'Cy' });
  const rule = await call<{ payload: { rule_id: string } }>(
    app.url,
    'POST',
    '/v1/admin/approval-rules/create',
    {
      key: app.adminKey,
      body: {
        name: 'signed in the terminal',
        match: { shared_context_id: context },
        require_approver_signature: true,
      },
    },
  );
  expect(rule.status).toBe(201);
  ruleId = rule.body.payload.rule_id;
}, 120_000);
afterAll(async () => {
  await worker.stop();
  await app.close();
});

/** A fresh home: its own config folder, so each test starts with no profile and no key. */
const freshHome = () => {
  const home = mkdtempSync(join(tmpdir(), 'gr-sign-'));
  return { home, xdg: join(home, 'xdg') };
};
/** `gr` as `who` (GR_URL / GR_API_KEY) in `home`, with more variables when given. */
const gr = (
  who: TestKey,
  home: { home: string; xdg: string },
  args: string[],
  env: Record<string, string> = {},
) =>
  runGr(args, {
    GR_URL: app.url,
    GR_API_KEY: who.apiKey,
    XDG_CONFIG_HOME: home.xdg,
    HOME: home.home,
    ...env,
  });

/** Ada proposes under the signature rule; answers the action once it awaits approval. */
async function propose(): Promise<string> {
  const id = await proposeUpdate(app, ada, {
    patch: { status: 'published' },
    shared_context_id: context,
  });
  await eventually(
    () => actionOf(id),
    (a) => a.status === 'awaiting_approval',
  );
  return id;
}
const actionOf = async (id: string) =>
  (
    await call<{ payload: Action }>(app.url, 'GET', `/v1/external-actions/${id}`, {
      key: ada.apiKey,
    })
  ).body.payload;

describe('gr keys create, then approve with it', () => {
  it('creates a key 0600 in a 0700 folder, registers it, signs the approval; the action executes', async () => {
    const home = freshHome();
    const created = jsonOf<{ key: KeyView; private_key: string; profile: string }>(
      await gr(ben, home, ['keys', 'create', '--name', 'ben laptop', '--json']),
    );
    expect(created.key).toMatchObject({ status: 'active', kind: 'ed25519', name: 'ben laptop' });
    expect(created.private_key).toBe(
      join(home.xdg, 'governed-runtime', 'keys', `${created.key.key_id}.pem`),
    );
    expect(statSync(created.private_key).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(created.private_key)).mode & 0o777).toBe(0o700);
    expect(readFileSync(created.private_key, 'utf8')).toContain('-----BEGIN PRIVATE KEY-----');
    const config = JSON.parse(
      readFileSync(join(home.xdg, 'governed-runtime', 'config.json'), 'utf8'),
    ) as { profiles: Record<string, { signing_key?: string }> };
    expect(config.profiles[created.profile].signing_key).toBe(created.private_key);

    const listed = await gr(ben, home, ['keys', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(`^\\*\\s+${created.key.key_id}\\s+ed25519\\s+active`, 'm'),
    );

    const id = await propose();
    const approved = await gr(ben, home, ['actions', 'approve', id, '--reason', 'looked']);
    expect(approved).toMatchObject({ code: 0, stderr: '' });
    expect(approved.stdout).toContain(`signed with approver key ${created.key.key_id}`);
    expect(approved.stdout).toContain(`${id} approved (approvals 1)`);

    const shown = await gr(ben, home, ['actions', 'show', id]);
    expect(shown.stdout).toContain(`proposed    by Ada (${ada.principalId})`);
    expect(shown.stdout).toContain(`approve by Ben (${ben.principalId})`);
    expect(shown.stdout).toContain(`signed with ${created.key.key_id}: "looked"`);
    expect(shown.stdout).toMatch(/signature\s+the approver's own key/);

    const executed = await gr(ben, home, ['actions', 'execute', id]);
    expect(executed.code).toBe(0);
    const watched = await gr(ben, home, ['actions', 'watch', id, '--interval', '0.2']);
    expect(watched.code).toBe(0);
    const final = await actionOf(id);
    expect(final.status).toBe('executed');
    expect(final.approvals[0]).toMatchObject({
      principal_id: ben.principalId,
      approver_assertion: { key_id: created.key.key_id },
    });
  });
});

describe('OpenSSH keys', () => {
  /** An Ed25519 pair as ssh-keygen writes it (or, without ssh-keygen, in both formats here). */
  function sshKeyPair(dir: string): string {
    const file = join(dir, 'id_ed25519');
    if (spawnSync('ssh-keygen', ['-?']).error === undefined) {
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'cy@desk', '-f', file]);
    } else {
      const pair = newApproverKeyPair();
      writeFileSync(file, pair.privateKey.export({ format: 'pem', type: 'pkcs8' }), {
        mode: 0o600,
      });
      writeFileSync(`${file}.pub`, `${pair.openSsh}\n`);
    }
    return file;
  }

  it('registers an id_ed25519.pub and signs with the matching private key (flag, then variable)', async () => {
    const home = freshHome();
    const file = sshKeyPair(home.home);
    const registered = jsonOf<KeyView>(
      await gr(cy, home, ['keys', 'register', `${file}.pub`, '--json']),
    );
    expect(registered).toMatchObject({ status: 'active', kind: 'ed25519' });
    expect(registered.fingerprint).toMatch(/^SHA256:/);

    const approvedId = await propose();
    const approved = await gr(cy, home, ['actions', 'approve', approvedId, '--signing-key', file]);
    expect(approved).toMatchObject({ code: 0, stderr: '' });
    expect(approved.stdout).toContain(`signed with approver key ${registered.key_id} (${file})`);
    expect((await actionOf(approvedId)).status).toBe('approved');

    const rejectedId = await propose();
    const rejected = await gr(
      cy,
      home,
      ['actions', 'reject', rejectedId, '--reason', 'not now', '--json'],
      { GR_SIGNING_KEY: file },
    );
    expect(jsonOf<Action>(rejected)).toMatchObject({ action_id: rejectedId, status: 'rejected' });
    const rejection = (await actionOf(rejectedId)).decisions.find((d) => d.decision === 'reject');
    expect(rejection).toMatchObject({ approver_assertion: { key_id: registered.key_id } });
  });

  it('refuses an encrypted OpenSSH key, a key not registered and a key that is not Ed25519', async () => {
    const hasSshKeygen = spawnSync('ssh-keygen', ['-?']).error === undefined;
    const home = freshHome();
    const id = await propose();
    if (hasSshKeygen) {
      const locked = join(home.home, 'locked');
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'pass phrase', '-f', locked]);
      const refused = await gr(cy, home, ['actions', 'approve', id, '--signing-key', locked]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('is encrypted with a passphrase');
      expect(refused.stderr).toContain('ssh-keygen -p');
      const rsa = join(home.home, 'rsa');
      execFileSync('ssh-keygen', ['-q', '-t', 'rsa', '-b', '2048', '-N', '', '-f', rsa]);
      const notEd = await gr(cy, home, ['keys', 'register', `${rsa}.pub`]);
      expect(notEd).toMatchObject({ code: 1 });
      expect(notEd.stderr).toMatch(/ssh-rsa key; only Ed25519 keys sign decisions/);
    }
    const stray = join(home.home, 'stray.pem');
    writeFileSync(
      stray,
      generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }),
    );
    const unregistered = await gr(cy, home, ['actions', 'approve', id, '--signing-key', stray]);
    expect(unregistered.code).toBe(1);
    expect(unregistered.stderr).toContain('is not registered as one of your approver keys');
    expect(unregistered.stderr).toContain('gr keys register');
    expect((await actionOf(id)).status).toBe('awaiting_approval');
  });
});

describe('refusals', () => {
  it('without a key: exit 1 with the api’s 403 naming the rule, and what to type', async () => {
    const home = freshHome();
    const id = await propose();
    const refused = await gr(ben, home, ['actions', 'approve', id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `gr: approval rule "signed in the terminal" (${ruleId} v1) requires the approver's own signature to approve`,
    );
    expect(refused.stderr).toContain('(forbidden, HTTP 403');
    expect(refused.stderr).toContain('gr keys create');
    const json = JSON.parse((await gr(ben, home, ['actions', 'approve', id, '--json'])).stderr) as {
      error: { status: number; message: string; hint: string };
    };
    expect(json.error).toMatchObject({
      status: 403,
      hint: expect.stringContaining('gr keys create'),
    });
    expect((await actionOf(id)).status).toBe('awaiting_approval');
  });

  it('a challenge that expires before the decision arrives: the api’s 403, and to run it again', async () => {
    const home = freshHome();
    const created = jsonOf<{ key: KeyView }>(await gr(ben, home, ['keys', 'create', '--json']));
    const id = await propose();
    // Challenges issued now expire at once: the signed decision always arrives too late.
    const config = app.deps.config as { approverChallengeTtlSeconds: number };
    const ttl = config.approverChallengeTtlSeconds;
    config.approverChallengeTtlSeconds = 0;
    try {
      const late = await gr(ben, home, ['actions', 'approve', id]);
      expect(late.code).toBe(1);
      expect(late.stderr).toMatch(
        /approver signature refused: the challenge expired at .*; ask for a new one/,
      );
      expect(late.stderr).toContain('run the command again (it asks for a fresh challenge)');
    } finally {
      config.approverChallengeTtlSeconds = ttl;
    }
    const again = await gr(ben, home, ['actions', 'approve', id]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`signed with approver key ${created.key.key_id}`);
  });

  it('a revoked key signs nothing: the CLI refuses before sending, naming the key', async () => {
    const home = freshHome();
    const created = jsonOf<{ key: KeyView; private_key: string }>(
      await gr(cy, home, ['keys', 'create', '--json']),
    );
    const revoked = await gr(cy, home, ['keys', 'revoke', created.key.key_id]);
    expect(revoked).toMatchObject({ code: 0 });
    expect(revoked.stdout).toContain(`revoked ${created.key.key_id}`);
    const listed = await gr(cy, home, ['keys', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`${created.key.key_id}\\s+ed25519\\s+revoked`));

    const id = await propose();
    const refused = await gr(cy, home, ['actions', 'approve', id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`is approver key ${created.key.key_id}, revoked at`);
    expect((await actionOf(id)).status).toBe('awaiting_approval');
  });
});
