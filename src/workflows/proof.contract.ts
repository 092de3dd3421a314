import type { ProofRunRecord } from '../store/proofs.repo';

export interface ProofWorkflowInput {
  record: ProofRunRecord;
}

export const proofWorkflowId = (runId: string): string => `proof-${runId}`;
