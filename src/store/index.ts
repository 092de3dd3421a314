import type { Db } from 'mongodb';
import type { AuditSealer } from './audit-chain';
import { createApiKeysRepo } from './api-keys.repo';
import { createArtifactsRepo } from './artifacts.repo';
import { createSubstrateDeploymentsRepo } from './substrate-deployments.repo';
import { createSubstrateSnapshotsRepo } from './substrate-snapshots.repo';
import { createExternalActionsRepo } from './external-actions.repo';
import { createExternalEventsRepo } from './external-events.repo';
import { createWorldExternalStateRepo } from './world-external-state.repo';
import { createOutboxRepo } from './outbox.repo';
import { createWorldHistoryRepo } from './world-history.repo';
import { createWorldObjectsRepo } from './world-objects.repo';
import { createWorldRelationshipsRepo } from './world-relationships.repo';
import { createWorldRevisionsRepo } from './world-revisions.repo';
import { createWorldStatePagesRepo } from './world-state-pages.repo';
import { createWorldTasksRepo } from './world-tasks.repo';
import { createAuditRepo } from './audit.repo';
import { createIdempotencyRepo } from './idempotency.repo';
import { createOrganizationsRepo } from './organizations.repo';
import { createPrincipalsRepo } from './principals.repo';
import { createProjectsRepo } from './projects.repo';
import { createServiceEventsRepo } from './service-events.repo';
import { createUsageRollupsRepo } from './usage-rollups.repo';
import { createActionInboxRepo } from './action-inbox.repo';
import { createApprovalRulesRepo } from './approval-rules.repo';
import { createApproverKeysRepo } from './approver-keys.repo';
import { createCheckpointsRepo } from './checkpoints.repo';
import { createRepairsRepo } from './repairs.repo';
import { createThreadsRepo } from './threads.repo';
import { createCollectionReader } from './collection-reader';
import { createNotificationsRepo } from './notifications.repo';
import { createSubscriptionsRepo } from './subscriptions.repo';
import { createQuotaPoliciesRepo } from './quota-policies.repo';
import { createRateCountersRepo } from './rate-counters.repo';
import { createRecordCountsRepo } from './record-counts.repo';
import { createStatusClaimsRepo } from './status-claims.repo';
import { createRequestLedgerRepo } from './request-ledger.repo';
import { createRuntimeRepo } from './runtime.repo';
import { createSessionStepsRepo } from './session-steps.repo';
import { createSessionsRepo } from './sessions.repo';
import { createStepLeases } from './step-leases';
import { createWitnessJournalRepo } from './witness-journal.repo';
import {
  journaledActions,
  journaledDeployments,
  journaledEvents,
  journaledSessions,
  journaledTasks,
} from './witness-recorder';
import { createProofsRepo } from './proofs.repo';
import { createScenarioRunsRepo } from './scenario-runs.repo';
import { createHeavyWorkRepo } from './heavy-work.repo';
import type { SealedRecords } from './sealed-records';

/**
 * Every repository, built over one database. The repositories of records that grant
 * authority seal what they write and check what they read with `sealed` (the process's
 * record seal, from its configuration). `auditSeal`: the api's, which the audit is written
 * with (chained, sealed, checkpointed); without it the audit is only read.
 */
export function createRepos(
  db: Db,
  sealed: SealedRecords,
  options: { auditSeal?: AuditSealer } = {},
) {
  // The world repositories advance the world revision after each write (docs/world.md).
  const worldRevisions = createWorldRevisionsRepo(db);
  // Each write of a record a witness reads is followed by its journal append, in one place
  // (`witness-recorder.ts`); the repositories only store.
  const witnessJournal = createWitnessJournalRepo(db);
  return {
    organizations: createOrganizationsRepo(db, sealed),
    principals: createPrincipalsRepo(db, sealed),
    projects: createProjectsRepo(db),
    apiKeys: createApiKeysRepo(db, sealed),
    audit: createAuditRepo(db, options.auditSeal),
    requestLedger: createRequestLedgerRepo(db),
    usageRollups: createUsageRollupsRepo(db),
    serviceEvents: createServiceEventsRepo(db),
    idempotency: createIdempotencyRepo(db),
    rateCounters: createRateCountersRepo(db),
    runtime: createRuntimeRepo(db),
    sessions: journaledSessions(createSessionsRepo(db), witnessJournal),
    sessionSteps: createSessionStepsRepo(db, createStepLeases(witnessJournal)),
    quotaPolicies: createQuotaPoliciesRepo(db, sealed),
    approvalRules: createApprovalRulesRepo(db, sealed),
    approverKeys: createApproverKeysRepo(db, sealed),
    actionInbox: createActionInboxRepo(db),
    checkpoints: createCheckpointsRepo(db),
    repairs: createRepairsRepo(db),
    proofs: createProofsRepo(db),
    scenarioRuns: createScenarioRunsRepo(db),
    threads: createThreadsRepo(db),
    collectionReader: createCollectionReader(db),
    subscriptions: createSubscriptionsRepo(db),
    notifications: createNotificationsRepo(db),
    externalActions: journaledActions(createExternalActionsRepo(db, sealed), witnessJournal),
    witnessJournal,
    worldRevisions,
    worldStatePages: createWorldStatePagesRepo(db),
    worldObjects: createWorldObjectsRepo(db, worldRevisions),
    worldHistory: createWorldHistoryRepo(db, worldRevisions),
    worldRelationships: createWorldRelationshipsRepo(db),
    worldTasks: journaledTasks(createWorldTasksRepo(db), witnessJournal),
    outbox: createOutboxRepo(db),
    externalEvents: journaledEvents(createExternalEventsRepo(db), witnessJournal),
    worldExternalState: createWorldExternalStateRepo(db, worldRevisions),
    artifacts: createArtifactsRepo(db),
    substrateDeployments: journaledDeployments(createSubstrateDeploymentsRepo(db), witnessJournal),
    substrateSnapshots: createSubstrateSnapshotsRepo(db),
    recordCounts: createRecordCountsRepo(db),
    statusClaims: createStatusClaimsRepo(db),
    heavyWork: createHeavyWorkRepo(db),
    /** The record seal the repositories above seal and check with. */
    sealed,
  };
}

export type Repos = ReturnType<typeof createRepos>;

export { ensureIndexes } from './indexes';
