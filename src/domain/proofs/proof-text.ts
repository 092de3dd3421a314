import type { AuthContext } from '../../auth/auth-context';
import { code, detailsMarkdown, oneLine, whoMarkdown } from '../../lib/workflow-text';
import type { ProofRunRecord } from '../../store/proofs.repo';
import { linksOf, type LinkDeps } from '../workflow-links';
import { PROOF_CHECKS } from './schemas';

/** What a proof run's workflow shows in the Temporal Web UI from its start. */
export function proofRunStartText(deps: LinkDeps, record: ProofRunRecord, auth: AuthContext) {
  const checks =
    record.checks.length === PROOF_CHECKS.length ? 'every check' : record.checks.join(', ');
  return {
    staticSummary: oneLine(
      `proof run · ${checks} (≤ ${record.max_records} records each) · ${record._id} · by ${auth.principalName ?? auth.principalId}`,
    ),
    staticDetails: detailsMarkdown(
      `Proof run ${code(record._id)}`,
      {
        'Proof run': code(record._id),
        Checks: record.checks.map(code).join(', '),
        'Records read per check': `at most ${record.max_records}`,
        'Requested by': whoMarkdown(auth.principalName, auth.principalId),
        Summary: code('GET /v1/proofs/summary'),
      },
      linksOf(deps, '/v1/proofs/status'),
    ),
  };
}
