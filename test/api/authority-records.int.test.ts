import { canonicalDigest } from '../../src/lib/canonical-digest';
import { newId } from '../../src/lib/ids';
import {
  challengeFor,
  ed25519Assertion,
  newApproverKeyPair,
  registerApproverKey,
} from '../helpers/approver-keys';
import { proposeUpdate } from '../helpers/actions';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

// The records that grant authority, played by whoever holds the database but none of the
// service's keys (docs/approvals.md, "Threat model"). Each edit below worked before the
// records were sealed: a key re-pointed at another principal acted as them, a revoked key set
// back to active worked again, approver keys inserted in others' names approved, a weakened
// rule governed the next proposal, and a made-up end record stopped decisions.
interface ErrorBody {
  error: { code: string; message: string; integrity?: { collection: string; record_id: string } };
}
interface Me {
  payload: { principal: { principal_id: string } };
}

let app: TestApp;
let worker: TestWorker;
let member: TestKey;
let ben: TestKey;
let cy: TestKey;

beforeAll(async () => {
  app = await startTestApp('authority_records');
  worker = await startTestWorker(app.deps);
  member = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2, name: 'M' });
  ben = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2, name: 'B' });
  cy = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2, name: 'C' });
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const db = () => app.deps.db;
/** What the key cache would do within its bound anyway: read the records again. */
const afterCacheBound = () => app.deps.authenticator.invalidateAll();
const whoAmI = (key: TestKey) =>
  call<Me & ErrorBody>(app.url, 'GET', '/v1/principals/me', { key: key.apiKey });
const securityEvents = async (): Promise<number> => {
  const metrics = await call(app.url, 'GET', '/metrics', { key: app.adminKey });
  const line = metrics.text
    .split('\n')
    .find((l) => l.startsWith('gr_security_events_total{kind="security.record_integrity"}'));
  return line ? Number(line.split(' ').pop()) : 0;
};
/** Runs one proof check on `on` (default: the shared app); answers its result. */
const runCheck = async (name: string, on: TestApp = app) =>
  (
    await call<{
      payload: {
        results: {
          name: string;
          status: string;
          violations: { collection: string; record_id: string; problem: string }[];
        }[];
      };
    }>(on.url, 'POST', '/v1/proofs/checks', { key: on.adminKey, body: { checks: [name] } })
  ).body.payload.results[0];

/** A rule for one shared context: two approvals, by B and C, each signed; answers its id. */
async function strictRuleFor(context: string): Promise<string> {
  const rule = await call<{ payload: { rule_id: string } }>(
    app.url,
    'POST',
    '/v1/admin/approval-rules/create',
    {
      key: app.adminKey,
      body: {
        name: `two signed approvers for ${context}`,
        match: { shared_context_id: context },
        required_approvals: 2,
        approver_principals: [ben.principalId, cy.principalId],
        require_approver_signature: true,
      },
    },
  );
  expect(rule.status).toBe(201);
  return rule.body.payload.rule_id;
}

describe('API keys, principals and organizations', () => {
  it('refuses a key re-pointed at another principal in the database (401 naming the integrity check)', async () => {
    const key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
    expect((await whoAmI(key)).body.payload.principal.principal_id).toBe(key.principalId);
    const before = await securityEvents();
    await db()
      .collection<{ _id: string }>('api_keys')
      .updateOne({ _id: key.keyId }, { $set: { principal_id: ben.principalId } });
    afterCacheBound();
    const res = await whoAmI(key);
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/this key's record failed its integrity check/);
    expect(res.body.error.integrity).toEqual({ collection: 'api_keys', record_id: key.keyId });
    expect(await securityEvents()).toBeGreaterThan(before);
  });

  it('refuses a revoked key set back to active in the database', async () => {
    const key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
    const revoked = await call(app.url, 'POST', '/v1/admin/keys/status', {
      key: app.adminKey,
      body: { key_id: key.keyId, status: 'revoked' },
    });
    expect(revoked.status).toBe(200);
    expect((await whoAmI(key)).status).toBe(401);
    await db()
      .collection<{ _id: string }>('api_keys')
      .updateOne({ _id: key.keyId }, { $set: { status: 'active' } });
    afterCacheBound();
    const res = await whoAmI(key);
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/integrity check/);
  });

  it('refuses a key restored whole from a copy taken before its revocation', async () => {
    const key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
    const keys = db().collection<{ _id: string }>('api_keys');
    const before = await keys.findOne({ _id: key.keyId });
    const revoked = await call(app.url, 'POST', '/v1/admin/keys/status', {
      key: app.adminKey,
      body: { key_id: key.keyId, status: 'revoked' },
    });
    expect(revoked.status).toBe(200);
    // Its seal of then holds; the version the service wrote since is outside the database.
    await keys.replaceOne({ _id: key.keyId }, before!);
    afterCacheBound();
    const res = await whoAmI(key);
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(
      /it is version 1, but the service wrote version \d+ \(an earlier copy, restored\)/,
    );
  });

  it('refuses a key whose principal was made an operator in the database', async () => {
    const key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
    await db()
      .collection<{ _id: string }>('principals')
      .updateOne({ _id: key.principalId }, { $set: { role: 'operator' } });
    afterCacheBound();
    const res = await whoAmI(key);
    expect(res.status).toBe(401);
    expect(res.body.error.integrity).toEqual({
      collection: 'principals',
      record_id: key.principalId,
    });
  });
});

describe('approver keys', () => {
  it('refuses approver keys inserted in others’ names: no approval as them', async () => {
    const context = `ctx-forged-keys-${newId('tsk')}`;
    await strictRuleFor(context);
    // The attacker's own Ed25519 key, registered in the database for B.
    const attacker = newApproverKeyPair();
    const forgedKeyId = newId('apk');
    const now = new Date().toISOString();
    await db().collection<{ _id: string; [field: string]: unknown }>('approver_keys').insertOne({
      _id: forgedKeyId,
      principal_id: ben.principalId,
      name: 'laptop',
      kind: 'ed25519',
      public_key: attacker.hex,
      fingerprint: 'SHA256:forged',
      status: 'active',
      created_at: now,
      revoked_at: null,
      revoked_by: null,
      version: 1,
    });
    const id = await proposeUpdate(app, member, {
      patch: { status: 'published' },
      shared_context_id: context,
    });
    // Whoever holds B's API key (or B's re-pointed key) signs with the attacker's key.
    const res = await call<ErrorBody>(app.url, 'POST', `/v1/external-actions/${id}/approve`, {
      key: ben.apiKey,
      body: {
        approver_assertion: ed25519Assertion(
          attacker,
          forgedKeyId,
          await challengeFor(app, ben, id),
        ),
      },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(
      new RegExp(`approver key ${forgedKeyId} failed its integrity check`),
    );
    // Not one of B's keys in B's own list either.
    const mine = await call<{ payload: { items: { key_id: string }[] } }>(
      app.url,
      'GET',
      '/v1/principals/me/keys',
      { key: ben.apiKey },
    );
    expect(mine.body.payload.items.map((k) => k.key_id)).not.toContain(forgedKeyId);
    // B's own registered key still approves.
    const benPair = newApproverKeyPair();
    const benKey = await registerApproverKey(app, ben, benPair);
    const genuine = await call(app.url, 'POST', `/v1/external-actions/${id}/approve`, {
      key: ben.apiKey,
      body: {
        approver_assertion: ed25519Assertion(benPair, benKey, await challengeFor(app, ben, id)),
      },
    });
    expect(genuine.status).toBe(200);
  });
});

describe('approval rules', () => {
  it('refuses a proposal governed by a rule weakened in the database, and stores nothing', async () => {
    const context = `ctx-weakened-${newId('tsk')}`;
    const ruleId = await strictRuleFor(context);
    await db()
      .collection<{ _id: string }>('approval_rules')
      .updateOne(
        { _id: ruleId },
        {
          $set: {
            required_approvals: 1,
            require_approver_signature: false,
            approver_principals: [member.principalId],
          },
        },
      );
    const before = await db().collection('external_actions').countDocuments({});
    const object = await app.deps.repos.worldObjects.insert({
      _id: newId('obj'),
      kind: 'document',
      name: 'doc',
      attributes: { status: 'draft' },
      external_state: {},
      version: 1,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    });
    const res = await call<ErrorBody>(app.url, 'POST', '/v1/external-actions/propose', {
      key: member.apiKey,
      body: {
        action_kind: 'world.update_object',
        target: { world_object_ref: object._id },
        parameters: { patch: { status: 'published' } },
        bounds: { allowed_fields: ['status'] },
        shared_context_id: context,
      },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(
      new RegExp(`approval rule ${ruleId} failed its integrity check`),
    );
    expect(await db().collection('external_actions').countDocuments({})).toBe(before);
  });
});

describe('end records', () => {
  it('refuses a made-up end record of a live action instead of believing it', async () => {
    const id = await proposeUpdate(app, member, { patch: { status: 'published' } });
    await db()
      .collection<{ _id: string; [field: string]: unknown }>('action_ends')
      .insertOne({ _id: id, status: 'rejected', seq: 3, digest: `sha256:${'0'.repeat(64)}` });
    const res = await call<ErrorBody>(app.url, 'POST', `/v1/external-actions/${id}/approve`, {
      key: ben.apiKey,
      body: {},
    });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(
      new RegExp(`end record of action ${id} failed its integrity check`),
    );
    expect(res.body.error.message).not.toMatch(/ledger ended it/);
  });
});

describe('the authority_records proof', () => {
  it('passes a store written through the api, then names every record edited in the database', async () => {
    const proofApp = await startTestApp('authority_records_proof');
    try {
      const key = await createTestKey(proofApp, { entitlement: 'strategic', accessLayer: 2 });
      const pair = newApproverKeyPair();
      const approverKey = await registerApproverKey(proofApp, key, pair);
      const check = () => runCheck('authority_records', proofApp);
      const proofWorker = await startTestWorker(proofApp.deps);
      try {
        expect(await check()).toMatchObject({ name: 'authority_records', status: 'passed' });
        const edit = (collection: string, id: string, set: Record<string, unknown>) =>
          proofApp.deps.db
            .collection<{ _id: string }>(collection)
            .updateOne({ _id: id }, { $set: set });
        await edit('api_keys', key.keyId, { access_layer: 3 });
        await edit('principals', key.principalId, { role: 'operator' });
        await edit('approver_keys', approverKey, { public_key: pair.hex.replace(/^../, '00') });
        await proofApp.deps.db
          .collection<{ _id: string; [field: string]: unknown }>('action_ends')
          .insertOne({ _id: 'act_made_up', status: 'executed', seq: 2, digest: 'sha256:00' });
        const failed = await check();
        expect(failed.status).toBe('failed');
        expect(failed.violations.map((v) => `${v.collection}/${v.record_id}`).sort()).toEqual(
          [
            `action_ends/act_made_up`,
            `api_keys/${key.keyId}`,
            `approver_keys/${approverKey}`,
            `principals/${key.principalId}`,
          ].sort(),
        );
      } finally {
        await proofWorker.stop();
      }
    } finally {
      await proofApp.close();
    }
  });
});

describe('a made-up, backdated, unsealed action', () => {
  it('is named by action_ledger_chain whatever its entries’ dates say', async () => {
    const id = await proposeUpdate(app, member, { patch: { status: 'published' } });
    const rejected = await call(app.url, 'POST', `/v1/external-actions/${id}/reject`, {
      key: ben.apiKey,
      body: { reason: 'no' },
    });
    expect(rejected.status).toBe(200);
    const ledger = db().collection<{
      _id: string;
      seq: number;
      prev_digest: string | null;
      digest: string;
      seal?: unknown;
      at: string;
      action_id?: string;
    }>('action_ledger');
    const entries = [];
    for (let seq = 1; ; seq += 1) {
      const entry = await ledger.findOne({ _id: `${id}:${seq}` });
      if (!entry) break;
      entries.push(entry);
    }
    expect(entries.length).toBeGreaterThanOrEqual(2);
    // Copied under a new id, seals removed, dated before any checkpoint, digests recomputed.
    const forged = newId('act');
    let prev: string | null = null;
    for (const entry of entries) {
      const { seal: _seal, digest: _digest, ...rest } = entry;
      const body = JSON.parse(JSON.stringify(rest).split(id).join(forged)) as typeof rest;
      body.at = '2026-01-05T00:00:00.000Z';
      body.prev_digest = prev;
      prev = canonicalDigest(body);
      await ledger.insertOne({ ...body, digest: prev });
    }
    const result = await runCheck('action_ledger_chain');
    expect(result.status).toBe('failed');
    const named = result.violations.filter((v) => v.record_id.startsWith(`${forged}:`));
    expect(named.map((v) => v.record_id)).toEqual(entries.map((e) => `${forged}:${e.seq}`));
    expect(named[0].problem).toMatch(/it is unsealed/);
  });
});
