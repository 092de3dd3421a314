import { ApplicationFailure } from '@temporalio/workflow';
import { requireStatus } from './action-validation';
import { createSignatureCheck } from './signature-check';
import {
  ACTION_ERRORS,
  type ActionActor,
  type ActionDecision,
  type ActionDecisionInput,
  type ActionState,
} from './shared';

/**
 * Refused decisions recorded one by one in the ledger per action; past that they are
 * aggregated (`decisions_refused`: the count and the last one), so a flood of forged updates
 * grows the ledger by a few entries, never silently.
 */
export const MAX_RECORDED_REFUSALS = 20;

type DecisionKind = ActionDecision['decision'];
type Record = (
  event: string,
  actor: ActionActor | null,
  detail?: { [key: string]: unknown },
) => Promise<void>;

const now = (): string => new Date().toISOString();

/**
 * How the action workflow takes decisions: each must carry the api's signature over exactly
 * what it claims, by a key the worker accepts (none until the proposal is trusted). A
 * refused one still gets its handler (the validator lets it in, so history has it), which
 * records it: one by one, then aggregated. Deterministic: workflow code.
 */
export function createDecisionGate(
  state: ActionState,
  record: Record,
  recording: () => Promise<void>,
  names: { principals: { [id: string]: string } },
) {
  let acceptedKeys: readonly string[] = [];
  const signatures = createSignatureCheck(() => acceptedKeys, state.action_id);
  const signatureProblem = signatures.problemOf;
  const unsigned = (message: string) =>
    ApplicationFailure.create({ type: ACTION_ERRORS.unsigned, message, nonRetryable: true });
  // Refusals past MAX_RECORDED_REFUSALS wait here for the next aggregate entry.
  let unrecordedRefusals = 0;
  let lastRefusal: { [key: string]: unknown } | null = null;
  let nextAggregateAt = MAX_RECORDED_REFUSALS + 1;

  /** The refusals not yet in the ledger, as one entry: how many, and the last one. */
  const recordRefusalAggregate = (): Promise<void> => {
    if (unrecordedRefusals === 0) return recording();
    const detail = {
      count: state.refused_decisions ?? 0,
      since_last_entry: unrecordedRefusals,
      last: lastRefusal,
    };
    unrecordedRefusals = 0;
    nextAggregateAt = (state.refused_decisions ?? 0) * 2;
    return record('decisions_refused', null, detail);
  };

  return {
    /** The keys the worker accepts, once its first activity has trusted the proposal. */
    trust(keys: readonly string[]): void {
      acceptedKeys = keys;
    },
    recordRefusalAggregate,
    /** A validator that lets a refused signature through to its handler, to be recorded. */
    signedValidator:
      (kind: DecisionKind, validate: (d: ActionDecisionInput) => void) =>
      (d: ActionDecisionInput): void => {
        if (acceptedKeys.length === 0) requireStatus(state, 'awaiting_approval', kind);
        if (!signatureProblem(d, kind)) validate(d);
      },
    /**
     * Null when the signature holds (synchronously, so the handler takes the decision in the
     * same turn its validator passed); else the refusal, recorded, as a failed update.
     */
    refusalOf: (d: ActionDecisionInput, kind: DecisionKind): Promise<never> | null => {
      const problem = signatureProblem(d, kind);
      if (!problem) {
        if (d.decision_id) signatures.markUsed(d.decision_id);
        return null;
      }
      const refused = (state.refused_decisions ?? 0) + 1;
      state.refused_decisions = refused;
      const refusal = {
        decision: kind,
        claimed_by: { principal_id: d.principal_id, key_id: d.key_id },
        problem,
        at: now(),
      };
      let recorded: Promise<void>;
      if (refused <= MAX_RECORDED_REFUSALS) recorded = record('decision_refused', null, refusal);
      else {
        unrecordedRefusals += 1;
        lastRefusal = refusal;
        recorded = refused >= nextAggregateAt ? recordRefusalAggregate() : recording();
      }
      return recorded.then(() => {
        throw unsigned(problem);
      });
    },
    /** The decision as the state keeps it, with the signature the effect checks again. */
    decision: (kind: DecisionKind, d: ActionDecisionInput): ActionDecision => {
      if (d.principal_name) names.principals[d.principal_id] = d.principal_name;
      return {
        decision: kind,
        principal_id: d.principal_id,
        key_id: d.key_id,
        reason: d.reason ?? null,
        plan_digest: d.plan_digest ?? null,
        at: now(),
        role: d.role ?? null,
        decision_id: d.decision_id,
        signed_at: d.signed_at,
        signature: d.signature,
        signer_key: d.signer_key,
      };
    },
  };
}
