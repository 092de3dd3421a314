import { randomBytes } from 'node:crypto';
import { call } from './http';
import type { TestApp } from './test-app';

export interface TestKeySpec {
  entitlement: 'sandbox' | 'institutional' | 'strategic';
  accessLayer: 0 | 1 | 2 | 3;
  role?: 'member' | 'operator';
  /** The principal's name (default: `test <class> <layer>`). */
  name?: string;
}

export interface TestKey {
  apiKey: string;
  keyId: string;
  principalId: string;
}

/** Creates a principal and a key through the admin API, as an operator would. */
export async function createTestKey(app: TestApp, spec: TestKeySpec): Promise<TestKey> {
  const principal = await call<{ payload: { principal_id: string } }>(
    app.url,
    'POST',
    '/v1/admin/principals/create',
    {
      key: app.adminKey,
      body: {
        name: spec.name ?? `test ${spec.entitlement} ${spec.accessLayer}`,
        email: `t-${randomBytes(5).toString('hex')}@example.test`,
        role: spec.role ?? 'member',
      },
    },
  );
  if (principal.status !== 201)
    throw new Error(`principal create failed: ${principal.status} ${principal.text}`);
  const key = await call<{ payload: { api_key: string; key_id: string } }>(
    app.url,
    'POST',
    '/v1/admin/keys/create',
    {
      key: app.adminKey,
      body: {
        principal_id: principal.body.payload.principal_id,
        entitlement: spec.entitlement,
        access_layer: spec.accessLayer,
      },
    },
  );
  if (key.status !== 201) throw new Error(`key create failed: ${key.status} ${key.text}`);
  return {
    apiKey: key.body.payload.api_key,
    keyId: key.body.payload.key_id,
    principalId: principal.body.payload.principal_id,
  };
}
