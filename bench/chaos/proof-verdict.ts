/** One check's newest result in a proof run, as `/v1/proofs/checks` answers it. */
export interface ProofCheckResult {
  name: string;
  status: string;
}

/** The most records a proof check may be told to read (the route's own maximum). */
export const PROOF_MAX_RECORDS_LIMIT = 100_000;

/**
 * How many records each proof check should read after a chaos run: enough for everything the
 * run stored, so a check is never left `inconclusive` by its bound. An action writes about ten
 * ledger entries (proposal, decisions, refusals, effect), a deployment a few dozen
 * records; half as much again is the margin for the verifier's own records.
 */
export function proofMaxRecords(stored: {
  events: number;
  actions: number;
  deployments: number;
}): number {
  const largest = Math.max(stored.events, stored.actions * 10, stored.deployments * 50);
  return Math.min(PROOF_MAX_RECORDS_LIMIT, Math.max(10_000, Math.ceil(largest * 1.5)));
}

/** Every check that did not pass, by its name and status (`inconclusive` is not a pass). */
export function checksNotPassed(results: readonly ProofCheckResult[]): string[] {
  return results.filter((r) => r.status !== 'passed').map((r) => `${r.name} (${r.status})`);
}
