import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * What every workflow contract shares: the task queues and the custom search attributes
 * registered on the namespace. Each workflow's own contract (input, updates, queries,
 * signals, ids) is the `<name>.contract.ts` beside it.
 */
export const TASK_QUEUE = 'governed-runtime';

/** Chunks of engine work run on their own task queue, away from the approval workflows. */
export const computeTaskQueueOf = (taskQueue: string): string => `${taskQueue}-compute`;

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
export const DeploymentStageKey = keywordKey('DeploymentStage');
