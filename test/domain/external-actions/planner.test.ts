import { planAction } from '../../../src/domain/external-actions/planner';
import type { WorldObject } from '../../../src/store/world-objects.repo';
import type { ActionContract } from '../../../src/workflows/external-action.contract';

const now = '2026-01-01T00:00:00.000Z';
const object: WorldObject = {
  _id: 'obj_01JABCDEFGHJKMNPQRSTVWXYZ0',
  kind: 'document',
  name: 'Report',
  attributes: { status: 'draft', owner: 'ada' },
  external_state: {},
  version: 4,
  created_at: now,
  updated_at: now,
};
const bounds = { allowed_fields: ['status'], expires_in_seconds: 3600, required_approvals: 1 };
const update = (patch: Record<string, unknown>): ActionContract => ({
  action_kind: 'world.update_object',
  target: { world_object_ref: object._id },
  parameters: { patch },
  bounds,
  shared_context_id: null,
  reason: null,
});
const webhook = (url: string): ActionContract => ({
  action_kind: 'webhook.post',
  target: { url },
  parameters: { body: { event: 'deploy' } },
  bounds,
  shared_context_id: null,
  reason: null,
});
const context = { object, webhookAllowlist: ['https://hooks.example/ci'], now };

describe('planAction (the dry-run plan)', () => {
  it('diffs a patch against the object as it is, at its version', () => {
    const plan = planAction(update({ status: 'final' }), context);
    expect(plan).toMatchObject({
      ok: true,
      diff: {
        object_id: object._id,
        base_version: 4,
        changes: { status: { from: 'draft', to: 'final' } },
      },
      policy: { allowed: true, reasons: [] },
    });
    expect(plan.plan_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('gives the same digest for the same contract and world, another when either moves', () => {
    const first = planAction(update({ status: 'final' }), context).plan_digest;
    expect(planAction(update({ status: 'final' }), { ...context, now: 'later' }).plan_digest).toBe(
      first,
    );
    const moved = { ...context, object: { ...object, version: 5 } };
    expect(planAction(update({ status: 'final' }), moved).plan_digest).not.toBe(first);
    expect(planAction(update({ status: 'gone' }), context).plan_digest).not.toBe(first);
  });

  it('refuses fields outside the bounds and a missing object, naming them', () => {
    expect(planAction(update({ owner: 'bob', status: 'x' }), context).policy.reasons).toEqual([
      'fields outside bounds.allowed_fields: owner',
    ]);
    const missing = planAction(update({ status: 'x' }), { ...context, object: null });
    expect(missing).toMatchObject({ ok: false, diff: null });
    expect(missing.policy.reasons[0]).toMatch(/does not exist/);
  });

  it('allows webhooks only under an allow-listed prefix of the same origin', () => {
    expect(planAction(webhook('https://hooks.example/ci/deploy'), context).ok).toBe(true);
    expect(planAction(webhook('https://hooks.example/ci'), context).ok).toBe(true);
    for (const url of [
      'https://hooks.example/cidr',
      'https://hooks.example/other',
      'http://hooks.example/ci/deploy',
      'https://evil.example/ci/deploy',
    ]) {
      expect(planAction(webhook(url), context).ok).toBe(false);
    }
    const plan = planAction(webhook('https://hooks.example/ci/deploy'), context);
    expect(plan.request).toMatchObject({ method: 'POST', signed: true });
  });
});
