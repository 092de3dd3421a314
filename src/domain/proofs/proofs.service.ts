import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { newId } from '../../lib/ids';
import type { ProofRunRecord, StoredCheckResult } from '../../store/proofs.repo';
import { proofWorkflowId, type ProofWorkflowInput } from '../../workflows/proof.contract';
import { resultWithin, startOpsWorkflow } from '../workflow-start';
import { workflowUrlOf, type LinkDeps } from '../workflow-links';
import { proofRunStartText } from './proof-text';
import { PROOF_CHECKS, type ProofChecksBody } from './schemas';

type Deps = Pick<DomainInfra, 'config' | 'metrics' | 'repos' | 'temporal'>;

/** How long `POST /v1/proofs/checks` waits for its run before answering 202 (docs/proofs.md). */
export const PROOF_WAIT_MS = 10_000;
/** Days the summary counts back. */
const SUMMARY_DAYS = 30;

export function toProofRunView(record: ProofRunRecord, links: LinkDeps) {
  const { _id, seq: _seq, ...rest } = record;
  return {
    run_id: _id,
    ...rest,
    workflow_url: workflowUrlOf(links, record.workflow_id),
    progress: { done: record.results.length, total: record.checks.length },
  };
}

/**
 * `POST /v1/proofs/checks`: records the run, starts its workflow (`proof-prf_…`), and waits
 * up to `PROOF_WAIT_MS` for it: a small run answers done, a large one answers running.
 */
export async function runProofChecks(deps: Deps, auth: AuthContext, body: ProofChecksBody) {
  const now = new Date().toISOString();
  const id = newId('prf');
  const record: ProofRunRecord = {
    _id: id,
    workflow_id: proofWorkflowId(id),
    status: 'running',
    checks: body.checks ?? [...PROOF_CHECKS],
    max_records: body.max_records ?? 10_000,
    results: [],
    requested_by: { principal_id: auth.principalId, key_id: auth.keyId },
    error: null,
    created_at: now,
    updated_at: now,
    completed_at: null,
    seq: 0,
  };
  await deps.repos.proofs.insert(record);
  const input: ProofWorkflowInput = { record };
  await startOpsWorkflow(deps, {
    workflowType: 'proofWorkflow',
    workflowId: record.workflow_id,
    args: [input],
    opsStatus: 'proof.running',
    requestedBy: auth.principalId,
    ...proofRunStartText(deps, record, auth),
  });
  const finished = await resultWithin<ProofRunRecord>(deps, record.workflow_id, PROOF_WAIT_MS);
  const stored = finished ?? (await deps.repos.proofs.findById(id)) ?? record;
  return { run: toProofRunView(stored, deps), done: finished !== null };
}

/** The newest result of each check, newest run first. */
function newestResults(runs: ProofRunRecord[]): Map<string, StoredCheckResult> {
  const newest = new Map<string, StoredCheckResult>();
  for (const run of runs) {
    for (const result of run.results) {
      const held = newest.get(result.name);
      if (!held || held.finished_at < result.finished_at) newest.set(result.name, result);
    }
  }
  return newest;
}

/**
 * `GET /v1/proofs/status`: each check's newest result, and `certified` when every one passed,
 * `failed` when one failed, `unknown` otherwise; `as_of` is the oldest of them.
 */
export async function proofStatus(deps: Pick<DomainInfra, 'repos'>, now = new Date()) {
  const newest = newestResults(await deps.repos.proofs.newest());
  const checks = PROOF_CHECKS.map((name) => ({ name, newest: newest.get(name) ?? null }));
  const results = checks.map((check) => check.newest);
  const certification = results.some((r) => r?.status === 'failed')
    ? 'failed'
    : results.every((r) => r?.status === 'passed')
      ? 'certified'
      : 'unknown';
  const times = results.flatMap((r) => (r ? [r.finished_at] : [])).sort();
  const asOf = times[0] ?? null;
  return {
    certification: certification,
    as_of: asOf,
    age_seconds: asOf ? Math.max(0, Math.floor((now.getTime() - Date.parse(asOf)) / 1000)) : null,
    checks,
  };
}

/** `GET /v1/proofs/summary`: runs per day (30 days), the newest failures and the newest run. */
export async function proofSummary(
  deps: Pick<DomainInfra, 'config' | 'repos' | 'temporal'>,
  now = new Date(),
) {
  const runs = await deps.repos.proofs.newest();
  const since = new Date(now.getTime() - SUMMARY_DAYS * 86_400_000).toISOString();
  const days = new Map<
    string,
    { day: string; runs: number; passed: number; failed: number; inconclusive: number }
  >();
  for (const run of runs) {
    if (run.created_at < since) continue;
    const day = run.created_at.slice(0, 10);
    const tally = days.get(day) ?? { day, runs: 0, passed: 0, failed: 0, inconclusive: 0 };
    tally.runs += 1;
    for (const result of run.results) tally[result.status] += 1;
    days.set(day, tally);
  }
  const failures = runs
    .flatMap((run) => run.results.filter((result) => result.status === 'failed'))
    .sort((a, b) => (a.finished_at < b.finished_at ? 1 : a.finished_at > b.finished_at ? -1 : 0))
    .slice(0, 20);
  return {
    runs: runs.length,
    by_day: [...days.values()].sort((a, b) => (a.day < b.day ? 1 : -1)),
    newest_failures: failures,
    newest_run: runs[0] ? toProofRunView(runs[0], deps) : null,
  };
}
