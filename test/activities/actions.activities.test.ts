import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { createActionActivities } from '../../src/activities/actions.activities';
import { createRepos } from '../../src/store';
import type { ActionContract, ActionState } from '../../src/workflows/shared';

// Found by `npm run chaos` (docs/chaos.md): a worker died after its execution had applied a
// world change but before the workflow recorded it; the retried execute re-planned, saw the
// object moved (by the action itself) and failed the action as `plan_drift`, although its
// change stood. The re-plan now recognises the action's own change, and applying the
// approved plan again changes nothing.
describe('external action activities: an execution that already took effect', () => {
  const client = new MongoClient(process.env['TEST_MONGODB_URI']!);
  const db = client.db(`t_action_acts_${randomBytes(3).toString('hex')}`);
  const repos = createRepos(db);
  const activities = createActionActivities({
    repos,
    webhookAllowlist: [],
    webhookSigningSecret: 'x'.repeat(32),
    webhookTimeoutMs: 1000,
  });

  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('re-plans as already applied, and applying the approved plan again is a no-op', async () => {
    const now = new Date().toISOString();
    const objectId = `obj_${randomBytes(8).toString('hex').toUpperCase().slice(0, 26)}`;
    await repos.worldObjects.insert({
      _id: objectId,
      kind: 'service',
      name: 'Lamp',
      attributes: { status: 'off' },
      external_state: {},
      version: 1,
      created_at: now,
      updated_at: now,
    });
    const contract = {
      action_kind: 'world.update_object',
      target: { world_object_ref: objectId },
      parameters: { patch: { status: 'on' } },
      bounds: { allowed_fields: ['status'] },
    } as unknown as ActionContract;
    const actionId = 'act_01TESTALREADYAPPLIED00001';
    const approved = await activities.planActionContract(contract, { actionId });
    expect(approved.ok).toBe(true);
    expect(approved.already_applied).toBeUndefined();

    const state = {
      action_id: actionId,
      action_kind: 'world.update_object',
      target: contract.target,
      parameters: contract.parameters,
    } as unknown as ActionState;
    await activities.applyAction({ state, plan: approved });
    expect((await repos.worldObjects.findById(objectId))?.version).toBe(2);

    // The retried execute's re-plan: the object moved, but by this very action.
    const replan = await activities.planActionContract(contract, { actionId });
    expect(replan.plan_digest).not.toBe(approved.plan_digest);
    expect(replan.already_applied).toBe(true);
    // Another action's re-plan of the same object is drift, as before.
    const other = await activities.planActionContract(contract, { actionId: 'act_other' });
    expect(other.already_applied).toBeUndefined();

    // Applying the approved plan again answers the same result and writes nothing.
    await expect(activities.applyAction({ state, plan: approved })).resolves.toEqual({
      object_id: objectId,
      version: 2,
    });
    const object = await repos.worldObjects.findById(objectId);
    expect(object?.version).toBe(2);
    expect(object?.attributes).toEqual({ status: 'on' });
    const history = await repos.worldHistory.list(
      { object_id: objectId, kind: 'object.updated' },
      10,
    );
    expect(history.items.filter((e) => e.change['action_id'] === actionId)).toHaveLength(1);
  });
});
