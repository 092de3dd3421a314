import { randomBytes } from 'node:crypto';

/** POSTs JSON with a key; resolves to the envelope's payload, or throws with the answer. */
export async function postJson<T = Record<string, string>>(
  baseUrl: string,
  path: string,
  key: string,
  body: unknown,
): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { payload: T }).payload;
}

/** A strategic key (own principal) with a quota policy the benchmark never reaches. */
export async function createUnlimitedKey(baseUrl: string, adminKey: string): Promise<string> {
  const principal = await postJson(baseUrl, '/v1/admin/principals/create', adminKey, {
    name: 'bench',
    email: `bench-${randomBytes(4).toString('hex')}@example.test`,
    role: 'member',
  });
  const key = await postJson(baseUrl, '/v1/admin/keys/create', adminKey, {
    principal_id: principal['principal_id'],
    entitlement: 'strategic',
    access_layer: 3,
  });
  await postJson(baseUrl, '/v1/admin/policies/create', adminKey, {
    name: 'bench: unlimited',
    scope: { key_id: key['key_id'] },
    requests_per_minute: 1_000_000,
    daily_quota: 1_000_000_000,
  });
  return key['api_key'];
}

/** Total MongoDB commands the api has sent, from its own metrics. */
export async function mongoCommands(baseUrl: string, adminKey: string): Promise<number> {
  const res = await fetch(`${baseUrl}/metrics`, { headers: { 'X-API-Key': adminKey } });
  let total = 0;
  for (const match of (await res.text()).matchAll(
    /^gr_mongodb_commands_total\{[^}]*\} (\d+(?:\.\d+)?)$/gm,
  )) {
    total += Number(match[1]);
  }
  return total;
}

/** Proposes a `notify` action; resolves to its id once it awaits approval. */
export async function proposeNotify(baseUrl: string, key: string, message: string) {
  const action = await postJson<{ action_id: string; status: string }>(
    baseUrl,
    '/v1/external-actions/propose',
    key,
    { action_kind: 'notify', target: {}, parameters: { message, channel: 'bench' }, bounds: {} },
  );
  if (action.status !== 'awaiting_approval') throw new Error(`proposed: ${action.status}`);
  return action.action_id;
}

/** Approves and executes an action; resolves once it is executed. */
export async function approveAndExecute(baseUrl: string, key: string, actionId: string) {
  await postJson(baseUrl, `/v1/external-actions/${actionId}/approve`, key, {});
  const done = await postJson<{ status: string }>(
    baseUrl,
    `/v1/external-actions/${actionId}/execute`,
    key,
    {},
  );
  if (done.status !== 'executed') throw new Error(`executed: ${done.status}`);
}
