import {
  ApplicationFailure,
  type ActivityOptions,
  proxyActivities,
  setCurrentDetails,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ProofActivities } from '../activities';
import type { ProofCheck } from '../domain/proofs/schemas';
import type { ProofRunRecord } from '../store/proofs.repo';
import { RECORD_STEP_OPTIONS } from './activity-options';
import { proofCurrentDetails } from './ops-details';
import type { ProofWorkflowInput } from './proof.contract';
import { OpsStatusKey } from './shared.contract';

const { recordProofRun } = proxyActivities<ProofActivities>(RECORD_STEP_OPTIONS);
// One check per call: it reads at most `max_records` of each collection it checks.
const CHECK_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 5 },
};
const { runProofCheck } = proxyActivities<ProofActivities>(CHECK_OPTIONS);

/**
 * One proof run (`proof-prf_…`): each check in turn, the record written after each (its
 * progress), then `completed`. The workflow is the run record's single writer.
 */
export async function proofWorkflow(input: ProofWorkflowInput): Promise<ProofRunRecord> {
  const record: ProofRunRecord = { ...input.record, results: [...input.record.results] };
  const save = async () => {
    record.seq += 1;
    record.updated_at = new Date().toISOString();
    setCurrentDetails(proofCurrentDetails(record));
    const summary = `record ${record.status}, ${record.results.length} of ${record.checks.length} checks`;
    await recordProofRun.executeWithOptions({ ...RECORD_STEP_OPTIONS, summary }, [record]);
  };
  setCurrentDetails(proofCurrentDetails(record));
  try {
    for (const check of record.checks) {
      const result = await runProofCheck.executeWithOptions(
        { ...CHECK_OPTIONS, summary: `check ${check} (at most ${record.max_records} records)` },
        [{ run_id: record._id, check: check as ProofCheck, max_records: record.max_records }],
      );
      record.results.push(result);
      await save();
    }
    record.status = 'completed';
    record.completed_at = new Date().toISOString();
    upsertSearchAttributes([{ key: OpsStatusKey, value: 'proof.completed' }]);
    await save();
    return record;
  } catch (error) {
    record.status = 'failed';
    record.error = error instanceof Error ? error.message : String(error);
    upsertSearchAttributes([{ key: OpsStatusKey, value: 'proof.failed' }]);
    await save();
    throw ApplicationFailure.nonRetryable(`proof run ${record._id} failed: ${record.error}`);
  }
}
