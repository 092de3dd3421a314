import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type GovernedClient } from '../../../packages/client/src';
import type { Action, LedgerEntry } from '../../../packages/client/src/cli/types';
import { seedObject } from '../../helpers/actions';
import { buildClientPackage, runGr, runGrAtTerminal } from '../../helpers/cli';
import { createTestKey, type TestKey } from '../../helpers/keys';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { startTestWorker, type TestWorker } from '../../helpers/test-worker';

// What `gr` says about an action in words, run as a process against the real service:
// the list and the approval name the target and the change, declining the approval's
// question is not success, and `show` says which decisions were refused, whose and why.

let app: TestApp;
let worker: TestWorker;
let ada: TestKey;
let ben: TestKey;
let asAda: GovernedClient;
let home: string;

beforeAll(async () => {
  buildClientPackage();
  app = await startTestApp('cli-words');
  worker = await startTestWorker(app.deps);
  ada = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2, name: 'Ada' });
  ben = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2, name: 'Ben' });
  asAda = createClient({ baseUrl: app.url, apiKey: ada.apiKey });
  home = mkdtempSync(join(tmpdir(), 'gr-words-'));
}, 120_000);
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const envOf = (who: TestKey) => ({
  GR_URL: app.url,
  GR_API_KEY: who.apiKey,
  XDG_CONFIG_HOME: home,
  HOME: home,
});

/** Ada proposes setting the status of a new lamp called `name`, from draft. */
async function proposeLampChange(name: string, status: string): Promise<Action> {
  const lamp = await seedObject(app, { kind: 'device', name, attributes: { status: 'draft' } });
  const { data } = await asAda.POST('/v1/external-actions/propose', {
    body: {
      action_kind: 'world.update_object',
      target: { world_object_ref: lamp._id },
      parameters: { patch: { status } },
      bounds: { allowed_fields: ['status'] },
      reason: `mark it ${status}`,
    },
  });
  expect(data!.payload.status).toBe('awaiting_approval');
  return data!.payload;
}

const targetOf = (action: Action) =>
  (action.target as { world_object_ref: string }).world_object_ref;

it('lists each action with its target by name and the change it proposes', async () => {
  const action = await proposeLampChange('Porch lamp', 'reviewed');
  const listed = await runGr(['actions', 'list', '--status', 'awaiting_approval'], envOf(ben));
  expect(listed.code).toBe(0);
  const [header, ...rows] = listed.stdout.trim().split('\n');
  expect(header).toMatch(/\sTARGET\s+CHANGE$/);
  const row = rows.find((line) => line.startsWith(action.action_id));
  expect(row).toMatch(/\sdevice Porch lamp\s+status: "draft" → "reviewed"$/);
});

it('asks about the change and its target; no is exit 1 and sends nothing, yes approves it', async () => {
  const action = await proposeLampChange('Hall lamp', 'published');
  const id = action.action_id;
  const change = `status: "draft" → "published" on device Hall lamp (${targetOf(action)})`;
  const question = `approve ${id}: ${change}? [y/N]`;

  const declined = await runGrAtTerminal(['actions', 'approve', id], envOf(ben), '[y/N]', 'n');
  expect(declined.asked).toBe(true);
  expect(declined.code).toBe(1);
  expect(declined.stdout).toContain(`  target      device Hall lamp (${targetOf(action)})\n`);
  expect(declined.stdout).toContain(question);
  expect(declined.stdout).toContain(`gr: approve ${id} declined at the prompt: nothing sent\n`);
  const { data: still } = await asAda.GET('/v1/external-actions/{action_id}', {
    params: { path: { action_id: id } },
  });
  expect(still!.payload).toMatchObject({ status: 'awaiting_approval', approvals: [] });

  const approved = await runGrAtTerminal(['actions', 'approve', id], envOf(ben), '[y/N]', 'y');
  expect(approved.stdout).toContain(question);
  expect(approved.stdout).toContain(`${id} approved (approvals 1): ${change}\n`);
  expect(approved.code).toBe(0);
});

it('shows who a refused decision claimed to be and why the service refused it', async () => {
  const action = await proposeLampChange('Attic lamp', 'archived');
  const id = action.action_id;
  // A decision sent around the api, straight to the workflow in Temporal, claiming Ben.
  const temporal = await app.deps.temporal.getClient();
  const forged = temporal.workflow
    .getHandle(`action-${id}`)
    .executeUpdate('approve', { args: [{ principal_id: ben.principalId, key_id: ben.keyId }] });
  await expect(forged).rejects.toThrow();

  const { data: ledger } = await asAda.GET('/v1/external-actions/history', {
    params: { query: { action_id: id } },
  });
  const refusal = ledger!.payload.items.find((e: LedgerEntry) => e.event === 'decision_refused');
  const detail = refusal!.detail as { problem: string; at: string };
  expect(detail.problem).toEqual(expect.any(String));

  const shown = await runGr(['actions', 'show', id], envOf(ada));
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain(`  target      device Attic lamp (${targetOf(action)})\n`);
  expect(shown.stdout).toContain(
    `Refused 1 decision(s)\n  approve claimed by Ben (${ben.principalId}) at ${detail.at.slice(0, 19)}Z, refused: ${detail.problem}\n`,
  );
});
