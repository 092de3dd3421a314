import { newId } from '../../src/lib/ids';
import type { WorldObject } from '../../src/store/world-objects.repo';
import { call } from './http';
import type { TestKey } from './keys';
import type { TestApp } from './test-app';

/** A world object written straight to the store (version 1). */
export async function seedObject(
  app: TestApp,
  fields: { kind?: string; name?: string; attributes?: Record<string, unknown> } = {},
): Promise<WorldObject> {
  const now = new Date().toISOString();
  return app.deps.repos.worldObjects.insert({
    _id: newId('obj'),
    kind: fields.kind ?? 'document',
    name: fields.name ?? 'Test document',
    attributes: fields.attributes ?? { status: 'draft' },
    external_state: {},
    version: 1,
    created_at: now,
    updated_at: now,
  });
}

export interface UpdateProposal {
  /** The patch; its fields are the contract's allowed fields. */
  patch: Record<string, unknown>;
  attributes?: Record<string, unknown>;
  bounds?: Record<string, unknown>;
  shared_context_id?: string;
  reason?: string;
}

/** Proposes a `world.update_object` on a new object through the API; answers the action id. */
export async function proposeUpdate(
  app: TestApp,
  key: TestKey,
  proposal: UpdateProposal,
): Promise<string> {
  const object = await seedObject(app, { attributes: proposal.attributes });
  const res = await call<{ payload: { action_id: string } }>(
    app.url,
    'POST',
    '/v1/external-actions/propose',
    {
      key: key.apiKey,
      body: {
        action_kind: 'world.update_object',
        target: { world_object_ref: object._id },
        parameters: { patch: proposal.patch },
        bounds: { allowed_fields: Object.keys(proposal.patch), ...proposal.bounds },
        ...(proposal.shared_context_id ? { shared_context_id: proposal.shared_context_id } : {}),
        ...(proposal.reason ? { reason: proposal.reason } : {}),
      },
    },
  );
  if (res.status !== 201) throw new Error(`propose failed: ${res.status} ${res.text}`);
  return res.body.payload.action_id;
}

/** A world object with its `object.created` history event, as the demo world seeds them. */
export async function seedRecordedObject(
  app: TestApp,
  fields: { kind?: string; name?: string; attributes?: Record<string, unknown> } = {},
): Promise<WorldObject> {
  const object = await seedObject(app, fields);
  await app.deps.repos.worldHistory.appendOnce({
    _id: newId('evt'),
    kind: 'object.created',
    object_id: object._id,
    at: object.created_at,
    change: {
      after: { kind: object.kind, name: object.name, attributes: object.attributes },
      version: 1,
    },
  });
  return object;
}

/** An action's ledger entry as the history route answers it. */
export interface LedgerEntryView {
  seq: number;
  event: string;
  status: string;
  actor: { principal_id: string } | null;
  detail: Record<string, unknown>;
}

/** An action's whole ledger through the API, in `seq` order. */
export async function ledgerOfAction(
  app: TestApp,
  key: TestKey,
  actionId: string,
): Promise<LedgerEntryView[]> {
  const res = await call<{ payload: { items: LedgerEntryView[] } }>(
    app.url,
    'GET',
    `/v1/external-actions/history?action_id=${actionId}&limit=100`,
    { key: key.apiKey },
  );
  if (res.status !== 200) throw new Error(`history failed: ${res.status} ${res.text}`);
  return res.body.payload.items.sort((a, b) => a.seq - b.seq);
}

/** Proposes a `webhook.post` of `{event: 'deploy'}` to `url` through the API; answers its id. */
export async function proposeWebhook(app: TestApp, key: TestKey, url: string): Promise<string> {
  const res = await call<{ payload: { action_id: string } }>(
    app.url,
    'POST',
    '/v1/external-actions/propose',
    {
      key: key.apiKey,
      body: {
        action_kind: 'webhook.post',
        target: { url },
        parameters: { body: { event: 'deploy' } },
        bounds: {},
      },
    },
  );
  if (res.status !== 201) throw new Error(`propose failed: ${res.status} ${res.text}`);
  return res.body.payload.action_id;
}
