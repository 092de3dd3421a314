import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import type { RepairPlan } from '../../store/repairs.repo';
import type { WorldObject } from '../../store/world-objects.repo';
import type { ActionContract, ActionPlan } from '../../workflows/external-action.contract';

export interface PlanContext {
  /** The target object of `world.update_object` or `world.restore_object`, as it is now (null when missing). */
  object: WorldObject | null;
  /** URL prefixes `webhook.post` may reach. */
  webhookAllowlist: readonly string[];
  now: string;
}

/**
 * The dry-run plan of a contract, like `terraform plan`: the diff or request execution
 * would make and the policy verdict. Pure: the same contract and world give the same plan
 * and digest, which is how approval binds to a plan and execution detects drift.
 */
export function planAction(contract: ActionContract, context: PlanContext): ActionPlan {
  const reasons: string[] = [];
  let diff: ActionPlan['diff'] = null;
  let request: ActionPlan['request'] = null;

  switch (contract.action_kind) {
    case 'world.update_object': {
      const patch = contract.parameters['patch'] as Record<string, unknown>;
      const object = context.object;
      if (!object) {
        reasons.push(`world object ${contract.target.world_object_ref} does not exist`);
        break;
      }
      const allowed = new Set(contract.bounds.allowed_fields);
      const outside = Object.keys(patch).filter((field) => !allowed.has(field));
      if (outside.length > 0) {
        reasons.push(`fields outside bounds.allowed_fields: ${outside.sort().join(', ')}`);
      }
      const changes: Record<string, { from: unknown; to: unknown }> = {};
      for (const [field, to] of Object.entries(patch)) {
        changes[field] = { from: object.attributes[field] ?? null, to };
      }
      diff = { object_id: object._id, base_version: object.version, changes };
      break;
    }
    case 'world.restore_object': {
      const repair = contract.parameters['repair_plan'] as RepairPlan;
      const object = context.object;
      if (!object) {
        reasons.push(`world object ${contract.target.world_object_ref} does not exist`);
        break;
      }
      if (object.version !== repair.base_version) {
        reasons.push(
          `world object ${object._id} is at version ${object.version}, the repair planned on ${repair.base_version}`,
        );
      }
      const changes: Record<string, { from: unknown; to: unknown }> = {
        ...repair.diff.attributes,
      };
      for (const [field, change] of Object.entries(repair.diff.external_state)) {
        changes[`external_state:${field}`] = change;
      }
      diff = { object_id: object._id, base_version: object.version, changes };
      break;
    }
    case 'webhook.post': {
      const url = contract.target.url!;
      if (!context.webhookAllowlist.some((prefix) => urlMatches(url, prefix))) {
        reasons.push(`URL ${url} is not on the webhook allow-list`);
      }
      const body = contract.parameters['body'] ?? contract.parameters;
      const text = stringify(body) ?? 'null';
      request = {
        method: 'POST',
        url,
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': '<action_id>' },
        body,
        body_sha256: createHash('sha256').update(text).digest('hex'),
        signed: true,
      };
      break;
    }
    case 'notify': {
      request = {
        channel: contract.parameters['channel'] ?? 'default',
        message: contract.parameters['message'],
      };
      break;
    }
  }

  const policy = { allowed: reasons.length === 0, reasons };
  const digest = planDigestOf(contract, { diff, request, policy });
  return {
    plan_digest: digest,
    ok: policy.allowed,
    diff,
    request,
    bounds: contract.bounds,
    policy,
    planned_at: context.now,
  };
}

/**
 * The digest approvals bind to: what the plan would do (diff or request) and its verdict, for
 * this contract's kind, target and bounds. The effect recomputes it from the signed
 * contract, so a plan handed to it cannot differ from the one approved.
 */
export function planDigestOf(
  contract: Pick<ActionContract, 'action_kind' | 'target' | 'bounds'>,
  plan: Pick<ActionPlan, 'diff' | 'request' | 'policy'>,
): string {
  const canonical = stringify({
    kind: contract.action_kind,
    target: contract.target,
    diff: plan.diff,
    request: plan.request,
    bounds: contract.bounds,
    policy: plan.policy,
  });
  return `sha256:${createHash('sha256')
    .update(canonical ?? '')
    .digest('hex')}`;
}

/** `url` is under `prefix` (same origin, and path at or below the prefix's). */
function urlMatches(url: string, prefix: string): boolean {
  try {
    const target = new URL(url);
    const allowed = new URL(prefix);
    if (target.origin !== allowed.origin) return false;
    const base = allowed.pathname.endsWith('/') ? allowed.pathname : `${allowed.pathname}/`;
    return (
      allowed.pathname === '/' ||
      target.pathname === allowed.pathname ||
      target.pathname.startsWith(base)
    );
  } catch {
    return false;
  }
}
