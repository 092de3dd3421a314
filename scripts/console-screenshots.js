/* global fetch */
// Takes the screenshots docs/console.md shows, with Debian's Chromium through playwright-core,
// against a running service with its seeded world (`npm start`, or api and worker by hand):
//   GR_URL=http://127.0.0.1:8080 ADMIN_API_KEY=grk_… node scripts/console-screenshots.js
// It adds two principals with keys (a proposer and an approver), proposes three updates to
// world objects, approves one and, when TEMPORAL_ADDRESS is set and the `temporal` CLI is in
// .tools/bin, sends that action an unsigned approval around the api (refused and recorded),
// then writes docs/images/console-{inbox,detail}{,-375}.png at 1440 px and 375 px wide.
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { randomBytes } = require('node:crypto');
const { join } = require('node:path');
const { chromium } = require('playwright-core');

const URL_BASE = process.env.GR_URL ?? 'http://127.0.0.1:8080';
const ADMIN_KEY = process.env.ADMIN_API_KEY;
const OUT = join(__dirname, '../docs/images');
const TEMPORAL_CLI = join(__dirname, '../.tools/bin/temporal');

async function call(method, path, key, body) {
  const res = await fetch(`${URL_BASE}${path}`, {
    method,
    headers: { 'X-API-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json.error?.message}`);
  return json.payload;
}

async function keyFor(name) {
  const email = `${name.split(' ')[0].toLowerCase()}-${randomBytes(3).toString('hex')}@example.test`;
  const principal = await call('POST', '/v1/admin/principals/create', ADMIN_KEY, {
    name,
    email,
    role: 'member',
  });
  const key = await call('POST', '/v1/admin/keys/create', ADMIN_KEY, {
    principal_id: principal.principal_id,
    entitlement: 'strategic',
    access_layer: 2,
  });
  return { ...key, principal_id: principal.principal_id };
}

/** The approver's decision, sent straight to the workflow without the api's signature. */
function forgeApproval(actionId, approver) {
  if (!process.env.TEMPORAL_ADDRESS || !existsSync(TEMPORAL_CLI)) return false;
  const input = { principal_id: approver.principal_id, key_id: approver.key_id };
  const args = ['workflow', 'update', 'execute', '--workflow-id', `action-${actionId}`];
  args.push('--name', 'approve', '--input', JSON.stringify(input));
  args.push('--address', process.env.TEMPORAL_ADDRESS, '--namespace', 'default');
  try {
    execFileSync(TEMPORAL_CLI, args, { stdio: 'pipe' });
  } catch {
    // Refused, as it must be: the ledger now has a decision_refused entry.
  }
  return true;
}

async function seed() {
  const proposer = await keyFor('Grace Hopper');
  const approver = await keyFor('Ada Lovelace');
  const objects = (await call('GET', '/v1/worlds/objects?limit=3', proposer.api_key)).items;
  const changes = [
    [{ tier: 'critical' }, 'moved to the critical tier after the incident review'],
    [{ owner: 'payments-oncall' }, 'the on-call rotation owns it from Monday'],
    [{ region: 'eu-west-1' }, 'data residency: EU customers stay in the EU'],
  ];
  const ids = [];
  for (const [index, [patch, reason]] of changes.entries()) {
    const action = await call('POST', '/v1/external-actions/propose', proposer.api_key, {
      action_kind: 'world.update_object',
      target: { world_object_ref: objects[index % objects.length].object_id },
      parameters: { patch },
      bounds: { allowed_fields: Object.keys(patch), expires_in_seconds: 86_400 },
      reason,
    });
    ids.push(action.action_id);
  }
  const detail = await call('GET', `/v1/external-actions/${ids[0]}`, approver.api_key);
  const forged = forgeApproval(ids[0], approver);
  await call('POST', `/v1/external-actions/${ids[0]}/approve`, approver.api_key, {
    reason: 'checked the review notes',
    plan_digest: detail.dry_run.plan_digest,
  });
  if (!forged) console.warn('no refused decision in the pictures: set TEMPORAL_ADDRESS');
  return { approver, detailId: ids[0] };
}

async function shoot(browser, width, suffix, { approver, detailId }) {
  const page = await browser.newPage({ viewport: { width, height: width < 500 ? 812 : 900 } });
  await page.goto(`${URL_BASE}/console`);
  await page.fill('#key-input', approver.api_key);
  await page.click('#key-use');
  await page.locator('#inbox-count').waitFor();
  await page.locator('main table').waitFor();
  await page.screenshot({ path: join(OUT, `console-inbox${suffix}.png`), fullPage: true });
  await page.goto(`${URL_BASE}/console#/action/${detailId}`);
  await page.locator('#ledger').waitFor();
  await page.screenshot({ path: join(OUT, `console-detail${suffix}.png`), fullPage: true });
  await page.close();
}

async function main() {
  if (!ADMIN_KEY) throw new Error('set ADMIN_API_KEY (the operator key npm start prints)');
  const seeded = await seed();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    await shoot(browser, 1440, '', seeded);
    await shoot(browser, 375, '-375', seeded);
  } finally {
    await browser.close();
  }
  console.log(`screenshots written to ${OUT}`);
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
