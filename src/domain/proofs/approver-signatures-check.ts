import type { ApproverKeysRepo } from '../../store/approver-keys.repo';
import type { ActionLedgerEntry } from '../../store/external-actions.repo';
import type {
  ActionDecision,
  SignedActionProposal,
} from '../../workflows/external-action.contract';
import { approverSignaturesProblem } from '../external-actions/approver-authority';
import type { RelyingParty } from '../approver-keys/approver-assertion';
import { chainsByAction, type CheckFindings } from './checks';

/**
 * `approver_signatures`: each action whose ledger shows it executing under a signed rule
 * that requires approver signatures carries, in its approval entries, each approver's
 * assertion, and it verifies offline against that approver's registered key, which was not
 * revoked before the action started executing (a key revoked later does not void what it
 * already authorised). Actions under other rules are not counted. `complete`: every ledger
 * entry was read (else an action whose proposal entry was not read is skipped).
 */
export async function approverSignaturesCheck(
  entries: ActionLedgerEntry[],
  keys: Pick<ApproverKeysRepo, 'findByIds'>,
  relyingParty: RelyingParty,
  complete: boolean,
): Promise<CheckFindings> {
  const findings: CheckFindings = { checked: 0, violations: [] };
  for (const [actionId, chain] of chainsByAction(entries)) {
    const executing = chain.find((entry) => entry.status === 'executing');
    const proposed = chain.find((entry) => entry.event === 'proposed');
    if (!executing || (!proposed && !complete)) continue;
    const proposal = proposed?.detail['proposal'] as SignedActionProposal | undefined;
    if (proposed && !proposal?.rule?.require_approver_signature) continue;
    findings.checked += 1;
    const decisions = chain
      .map((entry) => entry.detail['decision'] as ActionDecision | undefined)
      .filter((decision): decision is ActionDecision => decision !== undefined);
    const problem = proposal
      ? await approverSignaturesProblem(
          { action_id: actionId, decisions, proposal },
          keys,
          relyingParty,
          { activeAt: executing.at },
        )
      : 'its ledger has no signed proposal';
    if (problem) {
      findings.violations.push({ collection: 'action_ledger', record_id: executing._id, problem });
    }
  }
  return findings;
}
