import { randomBytes } from 'node:crypto';
import { call, type HttpResult } from './http';
import type { TestKey } from './keys';
import type { TestApp } from './test-app';

export interface DeploymentView {
  deployment_id: string;
  status: string;
  stage: string;
  progress: { tick: number; ticks_total: number };
  workflow_id: string;
}
export type Body<T> = {
  ok: boolean;
  payload: T;
  error: { code: string; message: string } & Record<string, unknown>;
};

/** A life-lattice spec of `side`² cells for `ticks` ticks (seeded, so every seed differs). */
export const latticeSpec = (side: number, ticks: number, seed = 1) => ({
  scaffold: 'life-lattice',
  envelope: 'lattice-standard',
  params: { width: side, height: side, rule: 'B3/S23', ticks, seed },
});

/** A new organization through the admin API; answers its id. */
export async function createOrganization(app: TestApp): Promise<string> {
  const res = await call<Body<{ organization_id: string }>>(
    app.url,
    'POST',
    '/v1/admin/organizations/create',
    { key: app.adminKey, body: { name: `heavy ${randomBytes(5).toString('hex')}` } },
  );
  if (res.status !== 201) throw new Error(`organization create failed: ${res.text}`);
  return res.body.payload.organization_id;
}

/** A strategic, layer-2 key of a new principal in `organizationId`. */
export async function strategicKeyIn(app: TestApp, organizationId: string): Promise<TestKey> {
  const principal = await call<Body<{ principal_id: string }>>(
    app.url,
    'POST',
    '/v1/admin/principals/create',
    {
      key: app.adminKey,
      body: {
        name: 'heavy worker',
        email: `h-${randomBytes(5).toString('hex')}@example.test`,
        role: 'member',
        organization_id: organizationId,
      },
    },
  );
  if (principal.status !== 201) throw new Error(`principal create failed: ${principal.text}`);
  const key = await call<Body<{ api_key: string; key_id: string }>>(
    app.url,
    'POST',
    '/v1/admin/keys/create',
    {
      key: app.adminKey,
      body: {
        principal_id: principal.body.payload.principal_id,
        entitlement: 'strategic',
        access_layer: 2,
      },
    },
  );
  if (key.status !== 201) throw new Error(`key create failed: ${key.text}`);
  return {
    apiKey: key.body.payload.api_key,
    keyId: key.body.payload.key_id,
    principalId: principal.body.payload.principal_id,
  };
}

/** A quota policy (with generous request limits) through the admin API. */
export async function createPolicy(
  app: TestApp,
  scope: Record<string, string>,
  fields: Record<string, number>,
): Promise<HttpResult<Body<Record<string, unknown>>>> {
  return call<Body<Record<string, unknown>>>(app.url, 'POST', '/v1/admin/policies/create', {
    key: app.adminKey,
    body: {
      name: `heavy ${randomBytes(3).toString('hex')}`,
      scope,
      requests_per_minute: 3000,
      daily_quota: 1_000_000,
      ...fields,
    },
  });
}

export const deploy = (app: TestApp, key: TestKey, spec: unknown) =>
  call<Body<DeploymentView>>(app.url, 'POST', '/v1/substrates/deploy', {
    key: key.apiKey,
    body: { spec },
  });

export const deploymentOf = async (app: TestApp, key: TestKey, id: string) =>
  (
    await call<Body<DeploymentView>>(app.url, 'GET', `/v1/substrates/deployments/${id}`, {
      key: key.apiKey,
    })
  ).body.payload;

/** Polls until `check` answers something truthy (or throws after `timeoutMs`). */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Cancels deployments through Temporal (as an operator would) and waits until each is final. */
export async function cancelDeployments(
  app: TestApp,
  key: TestKey,
  deployments: DeploymentView[],
): Promise<void> {
  const client = await app.deps.temporal.getClient();
  await Promise.all(
    deployments.map(async (deployment) => {
      await client.workflow.getHandle(deployment.workflow_id).cancel();
      await eventually(`${deployment.deployment_id} cancelled`, async () => {
        const now = await deploymentOf(app, key, deployment.deployment_id);
        return now.status !== 'running' && now;
      });
    }),
  );
}
