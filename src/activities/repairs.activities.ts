import { ApplicationFailure } from '@temporalio/activity';
import stringify from 'safe-stable-stringify';
import { ACTION_BOUNDS } from '../domain/external-actions/schemas';
import { ruleFor } from '../domain/approval-rules/approval-rules.service';
import { diagnose, RepairNotPossible, type Diagnosis } from '../domain/repairs/diagnosis';
import { externalHeadOf, gatherEvidence, type EvidenceRepos } from '../domain/repairs/evidence';
import { finishRepair } from '../domain/repairs/finish-repair';
import { FINAL_REPAIR_STATUSES } from '../domain/repairs/schemas';
import type { Repos } from '../store';
import type { RepairFinding, RepairRecord } from '../store/repairs.repo';
import { schedulingWorkflow } from './scheduling-workflow';
import type { ClaimSignature } from '../signing/signed-claims';
import {
  ACTION_ERRORS,
  proposalClaimOf,
  type ActionContract,
  type ActionWorkflowInput,
} from '../workflows/external-action.contract';
import { repairRequestClaimOf } from '../workflows/repair.contract';
import type { WorkerTrust } from '../domain/worker-trust';

export interface RepairActivityDeps {
  repos: EvidenceRepos & Pick<Repos, 'repairs' | 'approvalRules'>;
  trust: Pick<WorkerTrust, 'claimProblem' | 'signClaim' | 'reportSecurityEvent'>;
}

/** Failure types a repair step ends with; none of them is retried. */
export const REPAIR_FAILURES = {
  notPossible: 'RepairNotPossible',
  objectGone: 'ObjectGone',
} as const;

/** The child action's id: one per repair, so a retried start finds the same action. */
export const childActionIdOf = (repairId: string): string => `act_${repairId.slice(4)}`;

/** Activities of the repair workflow; each is idempotent under retries. */
export function createRepairActivities(deps: RepairActivityDeps) {
  const { repos } = deps;

  async function objectOf(objectId: string) {
    const object = await repos.worldObjects.findById(objectId);
    if (!object) {
      throw ApplicationFailure.nonRetryable(
        `world object ${objectId} does not exist`,
        REPAIR_FAILURES.objectGone,
      );
    }
    return object;
  }

  /** Reads the object's records and diagnoses it under the repair's strategy. */
  async function diagnoseRepair(record: RepairRecord): Promise<Diagnosis> {
    const object = await objectOf(record.object_id);
    try {
      const evidence = await gatherEvidence(repos, object, record.strategy, record.checkpoint_id);
      return diagnose(record.strategy, evidence, { to_version: record.to_version });
    } catch (error) {
      if (error instanceof RepairNotPossible) {
        throw ApplicationFailure.nonRetryable(error.message, REPAIR_FAILURES.notPossible);
      }
      throw error;
    }
  }

  /** Projects the repair's record (the workflow is its single writer). */
  async function recordRepair(record: RepairRecord): Promise<void> {
    if (!FINAL_REPAIR_STATUSES.includes(record.status)) {
      await repos.repairs.project(record);
      return;
    }
    // A run reset to before its last record numbers its records again from there, so its
    // end could carry a `seq` the store already holds and be dropped as a late retry. An
    // end always lands over a record that has not ended (never over another end).
    const stored = await repos.repairs.findById(record._id);
    if (stored && FINAL_REPAIR_STATUSES.includes(stored.status)) return;
    await repos.repairs.project({ ...record, seq: Math.max(record.seq, (stored?.seq ?? 0) + 1) });
  }

  return {
    recordRepair,

    diagnoseRepair,

    /**
     * The `world.restore_object` action that applies the plan, proposed by the requester
     * under the approval rule in force (which may raise the approvals needed).
     */
    async prepareRestoreAction(input: {
      record: RepairRecord;
      request_signature?: ClaimSignature;
    }): Promise<ActionWorkflowInput> {
      const { record } = input;
      // The worker vouches for the child action only when the api signed the repair, and
      // only for the plan its own diagnosis makes now (not one the workflow hands over).
      const problem = deps.trust.claimProblem(
        'repair-request',
        repairRequestClaimOf(record),
        input.request_signature,
        'the repair request',
      );
      if (problem) {
        const { workflowId, runId } = schedulingWorkflow();
        await deps.trust.reportSecurityEvent({
          kind: 'security.unsigned_repair',
          message: `refused to propose the child action of repair ${record._id}: ${problem}`,
          dedup_key: `${workflowId}/${runId}`,
          detail: { repair_id: record._id, workflow_id: workflowId, run_id: runId, problem },
        });
        throw ApplicationFailure.nonRetryable(problem, ACTION_ERRORS.unsignedProposal);
      }
      const diagnosed = await diagnoseRepair(record);
      const plan = diagnosed.plan;
      if (!plan || plan.digest !== record.plan?.digest) {
        throw ApplicationFailure.nonRetryable(
          `the repair's plan is not what a diagnosis makes now (${plan?.digest ?? 'nothing to do'})`,
          REPAIR_FAILURES.notPossible,
        );
      }
      const contract: ActionContract = {
        action_kind: 'world.restore_object',
        target: { world_object_ref: record.object_id },
        parameters: { repair_id: record._id, strategy: record.strategy, repair_plan: plan },
        bounds: {
          allowed_fields: [],
          expires_in_seconds: ACTION_BOUNDS.expiresInSeconds.default,
          required_approvals: ACTION_BOUNDS.requiredApprovals.default,
        },
        shared_context_id: null,
        reason: `repair ${record._id} (${record.strategy}, from ${plan.source})${record.reason ? `: ${record.reason}` : ''}`,
      };
      const rule = await ruleFor(repos.approvalRules, contract);
      if (
        rule?.required_approvals &&
        rule.required_approvals > contract.bounds.required_approvals
      ) {
        contract.bounds.required_approvals = rule.required_approvals;
      }
      const action: ActionWorkflowInput = {
        action_id: childActionIdOf(record._id),
        contract,
        rule,
        proposed_by: record.requested_by,
        created_at: record.status_timestamps.planned ?? record.updated_at,
        execute_when_approved: true,
        plan_digest: null,
        authority: `repair:${record._id}`,
      };
      return {
        ...action,
        proposal_signature: deps.trust.signClaim('proposal', proposalClaimOf(action)),
      };
    },

    /**
     * Checks the plan took: the object holds the planned attributes at the next version and
     * its external-state chain the planned fields, and it now revalidates clean.
     */
    async verifyRepair(record: RepairRecord): Promise<RepairFinding[]> {
      const plan = record.plan!;
      const object = await objectOf(record.object_id);
      const findings: RepairFinding[] = [];
      if (plan.attributes) {
        const ok =
          object.version >= plan.base_version + 1 &&
          stringify(object.attributes) === stringify(plan.attributes);
        findings.push({
          check: 'attributes_restored',
          ok,
          detail: ok
            ? `version ${object.version} holds the planned attributes`
            : `version ${object.version} does not hold the planned attributes`,
        });
      }
      if (plan.external_state) {
        const head = await externalHeadOf(repos, object._id);
        const ok = stringify(head?.fields ?? {}) === stringify(plan.external_state.fields);
        findings.push({
          check: 'external_state_restored',
          ok,
          detail: ok
            ? `revision ${head?.revision} holds the planned fields`
            : `revision ${head?.revision ?? 0} does not hold the planned fields`,
        });
      }
      const evidence = await gatherEvidence(repos, object, 'revalidate');
      findings.push(...diagnose('revalidate', evidence).findings);
      return findings;
    },

    /**
     * The repair's last step in one: `finishRepair` (the ended repair appended to the ledger
     * once, the object freed for the next), then its final record projected with
     * the ledger slot it got (which it answers). Each half is idempotent, so a retry after
     * either lands the same.
     */
    async finishAndRecordRepair(record: RepairRecord): Promise<number> {
      const ledgerSeq = await finishRepair(repos, record);
      await recordRepair({ ...record, ledger_seq: ledgerSeq });
      return ledgerSeq;
    },
  };
}
