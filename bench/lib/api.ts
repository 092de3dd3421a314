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
