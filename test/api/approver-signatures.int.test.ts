import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId } from '../../src/lib/ids';
import {
  challengeFor,
  ed25519Assertion,
  newApproverKeyPair,
  registerApproverKey,
  type ApproverKeyPair,
} from '../helpers/approver-keys';
import { proposeUpdate } from '../helpers/actions';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// Decisions signed by the approver's own key (docs/approvals.md): under a rule with
// `require_approver_signature`, the api takes an approval only with a valid assertion over
// a fresh challenge for exactly that action, decision, plan and rule, by one of the
// approver's active keys. Each attack below was taken on the code before this (a bare API
// key approved anything).
interface ActionView {
  action_id: string;
  status: string;
  dry_run: { plan_digest: string };
  decisions: { decision: string; approver_assertion?: { key_id: string } }[];
}
/** What verifying by hand reads of a ledger entry. */
interface HandEntry {
  event: string;
  detail: {
    proposal?: { rule: { rule_id: string; version: number } };
    decision?: {
      decision: string;
      plan_digest: string;
      principal_id: string;
      approver_assertion: { nonce: string; expires_at: string; signature: string };
    };
  };
}
interface ErrorBody {
  error: { code: string; message: string; rule_id?: string };
}

let app: TestApp;
let worker: TestWorker;
let proposer: TestKey;
let ben: TestKey;
let cy: TestKey;
const benPair = newApproverKeyPair();
const cyPair = newApproverKeyPair();
let benKey: string;
let cyKey: string;
const context = `ctx-signed-${newId('tsk')}`;
let ruleId: string;

beforeAll(async () => {
  app = await startTestApp('approver-signatures');
  worker = await startTestWorker(app.deps);
  proposer = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  ben = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  cy = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
  benKey = await registerApproverKey(app, ben, benPair);
  cyKey = await registerApproverKey(app, cy, cyPair);
  const rule = await call<{ payload: { rule_id: string; require_approver_signature: boolean } }>(
    app.url,
    'POST',
    '/v1/admin/approval-rules/create',
    {
      key: app.adminKey,
      body: {
        name: 'signed by hand',
        match: { shared_context_id: context },
        require_approver_signature: true,
      },
    },
  );
  expect(rule.status).toBe(201);
  expect(rule.body.payload.require_approver_signature).toBe(true);
  ruleId = rule.body.payload.rule_id;
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const propose = (approvals = 1) =>
  proposeUpdate(app, proposer, {
    patch: { status: 'published' },
    bounds: { required_approvals: approvals },
    shared_context_id: context,
  });
const actionOf = async (id: string) =>
  (
    await call<{ payload: ActionView }>(app.url, 'GET', `/v1/external-actions/${id}`, {
      key: ben.apiKey,
    })
  ).body.payload;
const approve = (who: TestKey, id: string, body: Record<string, unknown>) =>
  call<ErrorBody & { payload: ActionView }>(app.url, 'POST', `/v1/external-actions/${id}/approve`, {
    key: who.apiKey,
    body,
  });
const signedApproval = async (who: TestKey, pair: ApproverKeyPair, keyId: string, id: string) => ({
  approver_assertion: ed25519Assertion(pair, keyId, await challengeFor(app, who, id)),
});

describe('approvals under a rule that requires approver signatures', () => {
  it('refuses a bare API-key approval with 403 naming the rule and how to register a key', async () => {
    const id = await propose();
    const res = await approve(ben, id, {});
    expect(res.status).toBe(403);
    expect(res.body.error.rule_id).toBe(ruleId);
    expect(res.body.error.message).toMatch(/requires the approver's own signature/);
    expect(res.body.error.message).toContain('/v1/principals/me/keys/register');
    expect((await actionOf(id)).status).toBe('awaiting_approval');
  });

  it('takes a signed approval, executes, and keeps the assertion in the ledger', async () => {
    const id = await propose();
    const challenge = await challengeFor(app, ben, id);
    expect(JSON.parse(challenge.message)).toEqual([
      'governed-runtime/approver-decision/v1',
      id,
      'approve',
      challenge.plan_digest,
      ruleId,
      1,
      ben.principalId,
      challenge.nonce,
      challenge.expires_at,
    ]);
    const res = await approve(ben, id, {
      approver_assertion: ed25519Assertion(benPair, benKey, challenge),
    });
    expect(res.status).toBe(200);
    expect(res.body.payload.status).toBe('approved');
    const executed = await call<{ payload: ActionView }>(
      app.url,
      'POST',
      `/v1/external-actions/${id}/execute`,
      {
        key: ben.apiKey,
        body: {},
      },
    );
    expect(executed.body.payload.status).toBe('executed');
    const ledger = await call<{
      payload: {
        items: { event: string; detail: { decision?: ActionView['decisions'][number] } }[];
      };
    }>(app.url, 'GET', `/v1/external-actions/history?action_id=${id}`, { key: ben.apiKey });
    const approval = ledger.body.payload.items.find(
      (e) => e.detail['decision']?.decision === 'approve',
    );
    expect(approval?.detail.decision?.approver_assertion).toMatchObject({
      key_id: benKey,
      nonce: challenge.nonce,
      signature: expect.stringMatching(/^[0-9a-f]{128}$/),
    });
  });

  it('proves the approver signatures offline (approver_signatures), and fails on a tampered ledger', async () => {
    const check = async () =>
      (
        await call<{
          payload: {
            results: {
              name: string;
              status: string;
              checked: number;
              violations: { problem: string }[];
            }[];
          };
        }>(app.url, 'POST', '/v1/proofs/checks', {
          key: app.adminKey,
          body: { checks: ['approver_signatures'] },
        })
      ).body.payload.results[0];
    const passed = await check();
    expect(passed).toMatchObject({ name: 'approver_signatures', status: 'passed' });
    expect(passed.checked).toBeGreaterThanOrEqual(1);
    // A database administrator swaps the approver's signature in the ledger.
    await app.deps.db
      .collection('action_ledger')
      .updateMany(
        { 'detail.decision.approver_assertion.key_id': benKey },
        { $set: { 'detail.decision.approver_assertion.signature': '00'.repeat(64) } },
      );
    const failed = await check();
    expect(failed.status).toBe('failed');
    expect(failed.violations[0].problem).toMatch(/approver signature does not match/);
  });

  it('refuses an assertion for another action', async () => {
    const [first, second] = [await propose(), await propose()];
    const forFirst = await challengeFor(app, ben, first);
    const res = await approve(ben, second, {
      approver_assertion: ed25519Assertion(benPair, benKey, forFirst),
    });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/challenge is for action/);
  });

  it('refuses an assertion over another plan digest', async () => {
    const id = await propose();
    const other = `sha256:${'ab'.repeat(32)}`;
    const challenge = await challengeFor(app, ben, id, 'approve', other);
    const res = await approve(ben, id, {
      approver_assertion: ed25519Assertion(benPair, benKey, challenge),
    });
    // The approver signed another plan than the current one: the workflow refuses it.
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/plan_digest sha256:abab\S* is not the current plan/);
    // Naming the current plan beside a challenge for another: the api refuses the mismatch.
    const named = await challengeFor(app, ben, id, 'approve', other);
    const current = (await challengeFor(app, ben, id)).plan_digest;
    const mixed = await approve(ben, id, {
      plan_digest: current,
      approver_assertion: ed25519Assertion(benPair, benKey, named),
    });
    expect(mixed.status).toBe(403);
    expect(mixed.body.error.message).toMatch(/names plan sha256:abab/);
    // Signing the right challenge with edited bytes (another plan) fails the signature.
    const right = await challengeFor(app, ben, id);
    const edited = { ...right, message: right.message.replace(right.plan_digest, other) };
    const bad = await approve(ben, id, {
      approver_assertion: ed25519Assertion(benPair, benKey, edited),
    });
    expect(bad.status).toBe(403);
    expect(bad.body.error.message).toMatch(/does not match/);
  });

  it('refuses an expired challenge and a reused one', async () => {
    const id = await propose(2);
    const fresh = await challengeFor(app, ben, id);
    // The same challenge, as if issued long ago: stored expired, signed correctly.
    const expired = {
      ...fresh,
      nonce: newId('ach'),
      expires_at: new Date(Date.now() - 1000).toISOString(),
    };
    const message = JSON.parse(fresh.message) as unknown[];
    message[7] = expired.nonce;
    message[8] = expired.expires_at;
    await app.deps.repos.approverKeys.issueChallenge({
      _id: expired.nonce,
      purpose: 'decision',
      principal_id: ben.principalId,
      issued_at: new Date(Date.now() - 600_000).toISOString(),
      expires_at: expired.expires_at,
      action_id: id,
      decision: 'approve',
      plan_digest: fresh.plan_digest,
      rule_id: ruleId,
      rule_version: 1,
    });
    const late = await approve(ben, id, {
      approver_assertion: ed25519Assertion(benPair, benKey, {
        ...expired,
        message: JSON.stringify(message),
      }),
    });
    expect(late.status).toBe(403);
    expect(late.body.error.message).toMatch(/expired/);

    const assertion = ed25519Assertion(benPair, benKey, fresh);
    expect((await approve(ben, id, { approver_assertion: assertion })).status).toBe(200);
    const reused = await approve(ben, id, { approver_assertion: assertion });
    expect(reused.status).toBe(403);
    expect(reused.body.error.message).toMatch(/used already/);
  });

  it('spends a challenge on its first use, even a refused one', async () => {
    const id = await propose();
    const challenge = await challengeFor(app, ben, id);
    const edited = { ...challenge, message: challenge.message.replace(id, 'act_other') };
    const bad = await approve(ben, id, {
      approver_assertion: ed25519Assertion(benPair, benKey, edited),
    });
    expect(bad.status).toBe(403);
    expect(bad.body.error.message).toMatch(/does not match/);
    // The right signature over the same challenge comes too late: it was spent.
    const retry = await approve(ben, id, {
      approver_assertion: ed25519Assertion(benPair, benKey, challenge),
    });
    expect(retry.status).toBe(403);
    expect(retry.body.error.message).toMatch(/used already/);
    expect((await approve(ben, id, await signedApproval(ben, benPair, benKey, id))).status).toBe(
      200,
    );
  });

  it("refuses a revoked key and another principal's key", async () => {
    const id = await propose();
    // Cy signs with Ben's key id (Ben's private key is not Cy's): the key is not Cy's.
    const forCy = await challengeFor(app, cy, id);
    const foreign = await approve(cy, id, {
      approver_assertion: ed25519Assertion(benPair, benKey, forCy),
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.message).toMatch(/belongs to another principal/);

    const spare = newApproverKeyPair();
    const spareKey = await registerApproverKey(app, cy, spare);
    await call(app.url, 'POST', '/v1/principals/me/keys/revoke', {
      key: cy.apiKey,
      body: { key_id: spareKey },
    });
    const revoked = await approve(cy, id, await signedApproval(cy, spare, spareKey, id));
    expect(revoked.status).toBe(403);
    expect(revoked.body.error.message).toMatch(/revoked/);
    // Cy's own active key still works.
    expect((await approve(cy, id, await signedApproval(cy, cyPair, cyKey, id))).status).toBe(200);
  });

  // docs/approvals.md, "Verifying by hand": the same commands, run for real.
  const openssl = (() => {
    try {
      execFileSync('openssl', ['version']);
      return true;
    } catch {
      return false;
    }
  })();
  (openssl ? it : it.skip)(
    'signs with an openssl key and verifies the ledger by hand with openssl',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'approver-'));
      const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir }).toString();
      run('genpkey', '-algorithm', 'ed25519', '-out', 'approver.pem');
      run('pkey', '-in', 'approver.pem', '-pubout', '-out', 'approver.pub.pem');
      const registered = await call<{ payload: { key_id: string } }>(
        app.url,
        'POST',
        '/v1/principals/me/keys/register',
        {
          key: ben.apiKey,
          body: {
            name: 'openssl',
            public_key: readFileSync(join(dir, 'approver.pub.pem'), 'utf8'),
          },
        },
      );
      expect(registered.status).toBe(201);
      const id = await propose();
      const challenge = await challengeFor(app, ben, id);
      writeFileSync(join(dir, 'challenge.txt'), challenge.message);
      run(
        'pkeyutl',
        '-sign',
        '-inkey',
        'approver.pem',
        '-rawin',
        '-in',
        'challenge.txt',
        '-out',
        'sig.bin',
      );
      const signature = readFileSync(join(dir, 'sig.bin')).toString('hex');
      const res = await approve(ben, id, {
        approver_assertion: {
          key_id: registered.body.payload.key_id,
          nonce: challenge.nonce,
          expires_at: challenge.expires_at,
          signature,
        },
      });
      expect(res.status).toBe(200);

      // By hand, from the ledger and the proposal only: rebuild the bytes, verify with openssl.
      const ledger = await call<{
        payload: { items: HandEntry[] };
      }>(app.url, 'GET', `/v1/external-actions/history?action_id=${id}`, { key: ben.apiKey });
      const entries = ledger.body.payload.items;
      const rule = entries.find((e) => e.event === 'proposed')!.detail.proposal!.rule;
      const decision = entries.find((e) => e.detail.decision?.decision === 'approve')?.detail
        .decision;
      if (!decision) throw new Error('no approval in the ledger');
      const bytes = JSON.stringify([
        'governed-runtime/approver-decision/v1',
        id,
        'approve',
        decision.plan_digest,
        rule.rule_id,
        rule.version,
        decision.principal_id,
        decision.approver_assertion.nonce,
        decision.approver_assertion.expires_at,
      ]);
      writeFileSync(join(dir, 'rebuilt.txt'), bytes);
      writeFileSync(
        join(dir, 'rebuilt.sig'),
        Buffer.from(decision.approver_assertion.signature, 'hex'),
      );
      const verified = run(
        'pkeyutl',
        '-verify',
        '-pubin',
        '-inkey',
        'approver.pub.pem',
        '-rawin',
        '-in',
        'rebuilt.txt',
        '-sigfile',
        'rebuilt.sig',
      );
      expect(verified).toMatch(/Signature Verified Successfully/);
    },
  );
});
