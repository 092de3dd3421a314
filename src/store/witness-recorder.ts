import type { ExternalActionsRepo } from './external-actions.repo';
import { witnessAction, witnessLedgerEntry } from './external-actions.repo';
import {
  witnessEvent,
  witnessReconciliation,
  type ClaimGate,
  type ExternalEventsRepo,
} from './external-events.repo';
import type { SessionsRepo } from './sessions.repo';
import type { SubstrateDeploymentsRepo, WitnessDeployment } from './substrate-deployments.repo';
import type { WitnessJournalRepo } from './witness-journal.repo';
import type { WorldTasksRepo } from './world-tasks.repo';

/** What the recorder appends to. */
type Journal = Pick<WitnessJournalRepo, 'append'>;

/**
 * The one place a change to a record a witness reads enters the witness journal
 * (`witness-journal.repo.ts`, docs/witnesses.md "The witness index"): each write of these
 * repositories, once stored, appends its change, and the write resolves only once the
 * journal has it, so a witness read that begins after a write completed folds it. The
 * repositories themselves only store. Step leases journal themselves (`step-leases.ts`):
 * a lease is nothing but a journal record.
 */
export function journaledActions(repo: ExternalActionsRepo, journal: Journal) {
  return {
    ...repo,
    /** Journaled always: a retry after a failed append must still reach the journal. */
    async project(...args: Parameters<ExternalActionsRepo['project']>): Promise<void> {
      await repo.project(...args);
      await journal.append([witnessAction(args[0])]);
    },
    async appendOnce(...args: Parameters<ExternalActionsRepo['appendOnce']>) {
      const stored = await repo.appendOnce(...args);
      await journal.append([witnessLedgerEntry(stored)]);
      return stored;
    },
    /** The entries and the snapshot in one witness slot. */
    async projectTransitions(...args: Parameters<ExternalActionsRepo['projectTransitions']>) {
      const record = await repo.projectTransitions(...args);
      await journal.append([...args[0].map(witnessLedgerEntry), witnessAction(record)]);
      return record;
    },
  };
}

export function journaledEvents(repo: ExternalEventsRepo, journal: Journal) {
  return {
    ...repo,
    async claim(...args: Parameters<ExternalEventsRepo['claim']>): Promise<boolean> {
      const created = await repo.claim(...args);
      if (created) await journal.append([witnessEvent(args[0])]);
      return created;
    },
    /** The append goes through the caller's gate with the insert, as part of the claim. */
    claimMany(
      records: Parameters<ExternalEventsRepo['claimMany']>[0],
      gate: ClaimGate = (write) => write(),
    ) {
      return repo.claimMany(records, (write) =>
        gate(async () => {
          const results = await write();
          const created = records.filter((_, index) => results[index].status === 'created');
          await journal.append(created.map(witnessEvent));
          return results;
        }),
      );
    },
    async recordReconciliations(...args: Parameters<ExternalEventsRepo['recordReconciliations']>) {
      const stored = await repo.recordReconciliations(...args);
      await journal.append(stored.map(witnessReconciliation));
      return stored;
    },
  };
}

export function journaledTasks(repo: WorldTasksRepo, journal: Journal) {
  return {
    ...repo,
    async project(...args: Parameters<WorldTasksRepo['project']>): Promise<void> {
      await repo.project(...args);
      await journal.append([{ kind: 'task', record: args[0] }]);
    },
  };
}

export function journaledSessions(repo: SessionsRepo, journal: Journal) {
  return {
    ...repo,
    async insert(...args: Parameters<SessionsRepo['insert']>) {
      const record = await repo.insert(...args);
      await journal.append([{ kind: 'session', record }]);
      return record;
    },
  };
}

export function journaledDeployments(repo: SubstrateDeploymentsRepo, journal: Journal) {
  return {
    ...repo,
    async project(...args: Parameters<SubstrateDeploymentsRepo['project']>): Promise<void> {
      await repo.project(...args);
      const { _id, stage, updated_at } = args[0];
      const record: WitnessDeployment = { _id, stage, updated_at };
      await journal.append([{ kind: 'deployment', record }]);
    },
  };
}
