import type { Repos } from '../../store';
import { closureText, type WorkflowClosure } from '../workflow-closure';

/**
 * A checkpoint whose workflow was ended from Temporal while it ran: `failed`, its `error`
 * naming what Temporal recorded (what it copied so far stays listed, never a manifest).
 */
export async function failCheckpointAfterClosure(
  deps: { repos: Pick<Repos, 'checkpoints'> },
  checkpointId: string,
  closure: WorkflowClosure,
): Promise<'recorded' | 'already_final' | 'unknown_record'> {
  const record = await deps.repos.checkpoints.findById(checkpointId);
  if (!record) return 'unknown_record';
  if (record.status !== 'running') return 'already_final';
  await deps.repos.checkpoints.project({
    ...record,
    status: 'failed',
    error: closureText(closure),
    seq: record.seq + 1,
    updated_at: closure.closed_at,
  });
  return 'recorded';
}
