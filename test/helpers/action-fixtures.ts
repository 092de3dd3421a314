import type {
  ActionDecision,
  ActionDecisionInput,
  ActionPlan,
  ActionRule,
  ActionWorkflowInput,
} from '../../src/workflows/external-action.contract';

// Inputs for the pure action modules' tests (machine, validation): no server, no signer.

export const CREATED_AT = '2026-11-25T09:00:00.000Z';
export const LATER = '2026-11-25T09:05:00.000Z';

export const RUN = { workflow_id: 'action-act_1', run_id: 'run-2', first_run_id: 'run-1' };

export function actionInput(fields: Partial<ActionWorkflowInput> = {}): ActionWorkflowInput {
  return {
    action_id: 'act_1',
    contract: {
      action_kind: 'notify',
      target: {},
      parameters: { channel: 'ops' },
      bounds: { allowed_fields: [], expires_in_seconds: 3600, required_approvals: 1 },
      shared_context_id: null,
      reason: 'tell ops',
    },
    proposed_by: { principal_id: 'prn_ada', key_id: 'key_ada' },
    created_at: CREATED_AT,
    proposal_signature: { signed_at: CREATED_AT, signature: 'sig', signer_key: 'api-key' },
    ...fields,
  };
}

/** An input needing `n` approvals. */
export const needing = (n: number, fields: Partial<ActionWorkflowInput> = {}) => {
  const input = actionInput(fields);
  return {
    ...input,
    contract: { ...input.contract, bounds: { ...input.contract.bounds, required_approvals: n } },
  };
};

export function plan(fields: Partial<ActionPlan> = {}): ActionPlan {
  return {
    plan_digest: 'sha256:aaaa',
    ok: true,
    diff: null,
    request: null,
    bounds: { allowed_fields: [], expires_in_seconds: 3600, required_approvals: 1 },
    policy: { allowed: true, reasons: [] },
    planned_at: CREATED_AT,
    ...fields,
  };
}

export function rule(fields: Partial<ActionRule> = {}): ActionRule {
  return {
    rule_id: 'rul_1',
    name: 'ops changes',
    version: 3,
    required_approvals: null,
    approver_roles: [],
    approver_principals: [],
    require_reason: false,
    wait_seconds: 0,
    auto_execute: false,
    ...fields,
  };
}

export const decider = (principal: string, fields: Partial<ActionDecisionInput> = {}) => ({
  principal_id: principal,
  key_id: `key_${principal}`,
  ...fields,
});

export const decision = (
  kind: ActionDecision['decision'],
  principal: string,
  at = LATER,
): ActionDecision => ({
  decision: kind,
  principal_id: principal,
  key_id: `key_${principal}`,
  reason: null,
  plan_digest: null,
  at,
  role: null,
  decision_id: `dec_${principal}_${kind}`,
  signed_at: at,
  signature: 'sig',
  signer_key: 'api-key',
});
