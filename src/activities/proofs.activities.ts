import { Context } from '@temporalio/activity';
import { runProofCheck } from '../domain/proofs/run-check';
import type { ProofCheck } from '../domain/proofs/schemas';
import type { Repos } from '../store';
import type { ProofRunRecord } from '../store/proofs.repo';
import type { WorkerTrust } from '../domain/worker-trust';

export interface ProofActivityDeps {
  repos: Pick<
    Repos,
    'proofs' | 'collectionReader' | 'artifacts' | 'approverKeys' | 'externalActions' | 'sealed'
  >;
  trust: Pick<WorkerTrust, 'authority' | 'relyingParty' | 'ledgerSeal' | 'auditSeal'>;
}

const ACTION_PREFIX = 'action-';

/**
 * Ids of the actions whose workflow has a running execution on this worker's task queue,
 * as Temporal's visibility says (one paged list).
 */
async function runningActions(): Promise<Set<string>> {
  const { client, info } = Context.current();
  const queue = info.taskQueue.replace(/["\\]/g, '');
  const query = `TaskQueue = "${queue}" AND WorkflowType = "externalActionWorkflow" AND ExecutionStatus = "Running"`;
  const ids = new Set<string>();
  for await (const execution of client.workflow.list({ query, pageSize: 1000 })) {
    if (execution.workflowId.startsWith(ACTION_PREFIX)) {
      ids.add(execution.workflowId.slice(ACTION_PREFIX.length));
    }
  }
  return ids;
}

/** The proof run's activities: each check (reads only), and the run record. */
export function createProofActivities(deps: ProofActivityDeps) {
  return {
    /** Runs one check; it only reads, so a retry computes it again. */
    runProofCheck: (input: { run_id: string; check: ProofCheck; max_records: number }) =>
      runProofCheck(
        {
          repos: deps.repos,
          authority: deps.trust.authority,
          relyingParty: deps.trust.relyingParty,
          ledgerSeal: deps.trust.ledgerSeal,
          auditSeal: deps.trust.auditSeal,
          runningActions,
        },
        input,
      ),
    /** Writes the run as its workflow sees it (`seq`-guarded). */
    async recordProofRun(record: ProofRunRecord): Promise<void> {
      await deps.repos.proofs.project(record);
    },
  };
}
