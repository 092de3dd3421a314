import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApproverAssertion } from '../signing/approver-challenge';
import type { ActionKind, ActionStatus } from '../domain/external-actions/schemas';
import type { ProofRunRecord } from '../store/proofs.repo';
import type { ScenarioRunRecord } from '../store/scenario-runs.repo';
import type { CheckpointRecord } from '../store/checkpoints.repo';
import type { RepairRecord } from '../store/repairs.repo';
import type { DeploymentRecord, NormalizedSpec } from '../store/substrate-deployments.repo';
import type { DisplayNames } from './action-text';
import type {
  ActionActor,
  ActionContract,
  ActionDecisionInput,
  ActionRule,
  SignedActionProposal,
} from './action-contract';
import type { ClaimSignature } from '../signing/signed-claims';

// What the Web UI shows of an action before it starts: built by its starter (api, repair).
export {
  actionStaticDetails,
  actionStaticSummary,
  actionTargetText,
  type ActionStartFacts,
  type DisplayNames,
} from './action-text';

/**
 * The only workflow module the api imports: task queue, workflow names, message
 * definitions and input/output types shared by client and workflows.
 */
export const TASK_QUEUE = 'governed-runtime';

/**
 * Custom search attributes registered on the Temporal namespace (never a bare `Status`),
 * with their types: the same list as `temporal/search-attributes.txt` (docs/temporal-ui.md).
 */
export const SEARCH_ATTRIBUTES = {
  ActionStatus: 'Keyword',
  ActionKind: 'Keyword',
  SharedContextId: 'Keyword',
  DeploymentStage: 'Keyword',
  OpsStatus: 'Keyword',
  ProposedBy: 'Keyword',
  ApprovalsRemaining: 'Int',
  ApprovalRuleId: 'Keyword',
  WorldObjectId: 'Keyword',
  RepairStrategy: 'Keyword',
  DeploymentEnvelope: 'Keyword',
} as const;

export interface ServiceProbeInput {
  requestedAt: string;
}

export interface ServiceProbeResult {
  requestedAt: string;
  /** When the activity ran on a worker. */
  activityAt: string;
  workerIdentity: string;
}

// ---------------------------------------------------------------------------
// External actions (docs/actions.md)
// ---------------------------------------------------------------------------

// The action vocabulary is the domain's (a type-only import keeps TypeBox out of the bundle).
export type { ActionKind, ActionStatus };

/**
 * Statuses after which the workflow ends; `aborted` is recorded by the api when the
 * workflow was ended from Temporal instead (docs/actions.md).
 */
export const FINAL_ACTION_STATUSES: readonly ActionStatus[] = [
  'dry_run_failed',
  'rejected',
  'expired',
  'executed',
  'failed',
  'aborted',
];

/** True when the rule in force admits this principal to approve or reject. */
export function mayDecideUnder(
  rule: ActionRule | null | undefined,
  decider: { principal_id: string; role?: string },
): boolean {
  if (!rule || (rule.approver_roles.length === 0 && rule.approver_principals.length === 0)) {
    return true;
  }
  return (
    rule.approver_principals.includes(decider.principal_id) ||
    (decider.role !== undefined && rule.approver_roles.includes(decider.role))
  );
}

/** A dry-run plan: what execution would do, and whether policy allows it. */
export interface ActionPlan {
  plan_digest: string;
  ok: boolean;
  diff: {
    object_id: string;
    base_version: number;
    changes: Record<string, { from: unknown; to: unknown }>;
  } | null;
  request: Record<string, unknown> | null;
  bounds: ActionContract['bounds'];
  policy: { allowed: boolean; reasons: string[] };
  planned_at: string;
  /**
   * Set by the re-plan before executing when the object already carries this action's own
   * change: an earlier execution applied it and its worker died before the workflow
   * recorded that (found by `npm run chaos`). Not drift: applying again is a no-op.
   */
  already_applied?: true;
}

/** Why an approved plan was not applied: the plan made again at the effect, and policy's reasons. */
export interface PlanRefusal {
  replanned_digest: string;
  reasons: string[];
}

export interface ActionDecision extends ActionActor {
  decision: 'approve' | 'reject' | 'execute';
  reason: string | null;
  plan_digest: string | null;
  at: string;
  /**
   * The api's signature and what it covers beyond the fields above (absent on the workflow's
   * own `auto` execute): kept so the effect and the proofs can verify the decision again.
   */
  role?: string | null;
  decision_id?: string;
  signed_at?: string;
  signature?: string;
  signer_key?: string;
  /** The approver's own signature, kept for the effect's check and the ledger. */
  approver_assertion?: ApproverAssertion;
}

export interface ActionExecution {
  outcome: 'executed' | 'failed';
  reason: string | null;
  result: Record<string, unknown>;
  started_at: string;
  finished_at: string;
}

// The contract, what a start input and a decision carry, and what the api signs of them.
export * from './action-contract';

/** The authoritative state of an action, held by its workflow (the single writer). */
export interface ActionState extends ActionContract {
  action_id: string;
  status: ActionStatus;
  status_timestamps: Partial<Record<ActionStatus, string>>;
  proposed_by: ActionActor;
  approvals: ActionDecision[];
  decisions: ActionDecision[];
  dry_run: ActionPlan | null;
  execution: ActionExecution | null;
  expires_at: string;
  workflow_id: string;
  run_id: string;
  /** The first run of its chain (a reset keeps it): which start opened the action. */
  first_run_id?: string;
  created_at: string;
  updated_at: string;
  /** Projection sequence: the store keeps the highest. */
  seq: number;
  /** Digest of the newest ledger entry of this action. */
  ledger_head: string | null;
  /** Decisions refused for a missing, bad or replayed signature (sent around the api). */
  refused_decisions?: number;
  /** The approval rule in force (null: none matched). */
  rule?: ActionRule | null;
  /** When execution may start: approval plus the rule's wait (set once approved). */
  executable_at?: string | null;
  /** The signed proposal the workflow started with: what every effect is checked against. */
  proposal: SignedActionProposal;
}

/** Error types the action workflow's update validators throw; the api maps them to HTTP. */
export const ACTION_ERRORS = {
  invalidState: 'InvalidState',
  forbidden: 'Forbidden',
  conflict: 'Conflict',
  /** A decision without a valid api signature: forged, replayed or stale. */
  unsigned: 'UnsignedDecision',
  /** A start input without a valid api signature: the workflow does nothing. */
  unsignedProposal: 'UnsignedProposal',
  /** The rule in force wants a reason and the decision gave none (422 naming `reason`). */
  reasonRequired: 'ReasonRequired',
  /**
   * The run disagrees with the action's ledger (a reset's run that lacks what the ledger
   * holds, or goes on after the action ended): it records nothing more and ends
   * (docs/actions.md, "Resets"). Its details: the status the ledger ends the action in.
   */
  runRefused: 'RunRefused',
} as const;

/** Failure types an action's effect ends with; none of them is retried. */
export const EXECUTION_FAILURES = {
  planDrift: 'PlanDrift',
  /** The plan made again at the effect is one policy now denies. */
  policyDenied: 'PolicyDenied',
  webhookRejected: 'WebhookRejected',
} as const;

export const actionWorkflowId = (actionId: string): string => `action-${actionId}`;

export const approveActionUpdate = defineUpdate<ActionState, [ActionDecisionInput]>('approve');
export const rejectActionUpdate = defineUpdate<ActionState, [ActionDecisionInput]>('reject');
export const executeActionUpdate = defineUpdate<ActionState, [ActionDecisionInput]>('execute');
/** Returns once the dry run has settled the action (awaiting approval or failed). */
export const planSettledUpdate = defineUpdate<ActionState, []>('planSettled');
export const actionStateQuery = defineQuery<ActionState>('state');

/** A Keyword search attribute of ours, by its registered name. */
const keywordKey = (name: keyof typeof SEARCH_ATTRIBUTES) =>
  defineSearchAttributeKey(name, SearchAttributeType.KEYWORD);

export const ActionStatusKey = keywordKey('ActionStatus');
export const ActionKindKey = keywordKey('ActionKind');
/** Status of a continuous-ops workflow (checkpoints now, repairs later): filter them in the UI. */
export const OpsStatusKey = keywordKey('OpsStatus');
export const SharedContextIdKey = keywordKey('SharedContextId');
/** Who asked for the work: an action's proposer, a deployment's or repair's requester (id). */
export const ProposedByKey = keywordKey('ProposedBy');
/** Approvals an action still needs (0 once approved). */
export const ApprovalsRemainingKey = defineSearchAttributeKey(
  'ApprovalsRemaining',
  SearchAttributeType.INT,
);
export const ApprovalRuleIdKey = keywordKey('ApprovalRuleId');
/** The world object an action or a repair is about. */
export const WorldObjectIdKey = keywordKey('WorldObjectId');
export const RepairStrategyKey = keywordKey('RepairStrategy');
export const DeploymentEnvelopeKey = keywordKey('DeploymentEnvelope');

// ---------------------------------------------------------------------------
// Substrate deployments (docs/substrates.md)
// ---------------------------------------------------------------------------

/**
 * What a run of the deployment workflow holds: the record without its spec (the spec, up to
 * 64 KiB of pattern, is read by id from the store where needed, so it never accumulates in
 * history), plus what the run needs to carry across continue-as-new.
 */
export type DeploymentProgressState = Omit<DeploymentRecord, 'spec'> & { spec?: NormalizedSpec };

export interface DeploymentWorkflowInput {
  /** The record: with its spec on the first run, without it after continue-as-new. */
  deployment: DeploymentProgressState;
  /** What the Web UI shows for it (scaffold, size, rule), kept across runs. */
  label?: string;
  /** Epoch ms at which the deploying stage passes its wall-time bound (set once). */
  deploy_deadline_ms?: number;
  /** Chunks a run computes before it continues as new (default 100). */
  chunks_per_run?: number;
}

/**
 * The certification pack the deployment pipeline runs in its assaying stage. It is part of
 * the workflow's contract (its histories name it), so it lives here and the registry of
 * packs refers to it.
 */
export const PIPELINE_PACK_ID = 'conformance';

/** The deployment workflow's signature: clients start it by this type. */
export type SubstrateDeploymentWorkflow = (
  input: DeploymentWorkflowInput,
) => Promise<DeploymentProgressState>;

/** Chunks of engine work run on their own task queue, away from the approval workflows. */
export const computeTaskQueueOf = (taskQueue: string): string => `${taskQueue}-compute`;

export const DEPLOYMENT_ERRORS = {
  invalidSpec: 'InvalidSpec',
  /** A snapshot the run needs is gone: deterministic, retrying cannot help. */
  snapshotMissing: 'SnapshotMissing',
  /** The deployment record is gone from the store. */
  deploymentMissing: 'DeploymentMissing',
  wallTimeExceeded: 'WallTimeExceeded',
  assayFailed: 'AssayFailed',
} as const;

export const deploymentWorkflowId = (deploymentId: string): string => `deployment-${deploymentId}`;

export const deploymentStateQuery = defineQuery<DeploymentProgressState>('deploymentState');

export const DeploymentStageKey = keywordKey('DeploymentStage');

/** What a notification delivery workflow is started with. */
export interface NotificationDeliveryInput {
  notification_id: string;
  /** When the delivery is due: now, or a reminder's time before an approval window ends. */
  deliver_at: string;
  /** What it delivers to whom, for the Web UI (`action.approved` of `act_…` to `ops hook`). */
  about?: {
    event: string;
    subject_id: string;
    subscription_id: string;
    subscription_name: string;
  };
}

/** A delivery in one line: `deliver action.approved of act_… to ops hook`. */
export const deliveryText = (input: NotificationDeliveryInput): string =>
  input.about
    ? `deliver ${input.about.event} of ${input.about.subject_id} to ${input.about.subscription_name}`
    : `deliver notification ${input.notification_id}`;

export const notificationWorkflowId = (notificationId: string): string =>
  `notification-${notificationId}`;

/**
 * What a checkpoint workflow is started with: its first record (absent when a schedule
 * starts it: the workflow then names the checkpoint itself) and what each scope copies.
 */
export interface CheckpointWorkflowInput {
  record?: CheckpointRecord;
  collections: Record<string, readonly string[]>;
}

export const checkpointWorkflowId = (checkpointId: string): string => `checkpoint-${checkpointId}`;

// ---------------------------------------------------------------------------
// Repairs (docs/repair.md)
// ---------------------------------------------------------------------------

/** What a repair workflow is started with: its first record. */
export interface RepairWorkflowInput {
  record: RepairRecord;
  /**
   * The api's signature over the request (`repairRequestClaimOf`): without it the worker
   * does not propose the child action that would apply the repair.
   */
  request_signature?: ClaimSignature;
  /** The object's and the requester's names, for the Web UI (and the child action's). */
  names?: DisplayNames;
  /** `PUBLIC_BASE_URL`: where the child action's static details link back to. */
  public_base_url?: string;
}

export const repairWorkflowId = (repairId: string): string => `repair-${repairId}`;

/** What the api signs when it starts a repair (kind `repair-request`). */
export const repairRequestClaimOf = (record: RepairRecord) => ({
  repair_id: record._id,
  object_id: record.object_id,
  strategy: record.strategy,
  reason: record.reason,
  to_version: record.to_version,
  checkpoint_id: record.checkpoint_id,
  requested_by: record.requested_by,
  created_at: record.created_at,
});
export const repairStateQuery = defineQuery<RepairRecord>('repairState');

/** A child action tells the repair that started it of each status it enters. */
export const childActionStatusSignal =
  defineSignal<[{ action_id: string; status: ActionStatus }]>('childActionStatus');

// ---------------------------------------------------------------------------
// Proofs (docs/proofs.md)
// ---------------------------------------------------------------------------

export interface ProofWorkflowInput {
  record: ProofRunRecord;
}

export const proofWorkflowId = (runId: string): string => `proof-${runId}`;

// ---------------------------------------------------------------------------
// Scenarios (docs/scenarios.md)
// ---------------------------------------------------------------------------

export interface ScenarioWorkflowInput {
  record: ScenarioRunRecord;
  /** Base URL of the api the run drives (it acts as a client: docs/scenarios.md). */
  api_url: string;
}

export const scenarioWorkflowId = (runId: string): string => `scenario-${runId}`;
