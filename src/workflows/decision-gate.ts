import { ApplicationFailure } from '@temporalio/workflow';
import { statusRefusal, type DecisionRefusal } from './action-validation';
import { createSignatureCheck } from './signature-check';
import {
  ACTION_ERRORS,
  type ActionDecision,
  type ActionDecisionInput,
  type ActionStatus,
} from './external-action.contract';

type DecisionKind = ActionDecision['decision'];

/** A refusal as the failed update the api maps to HTTP. */
const failureOf = ({ type, message, details }: DecisionRefusal) =>
  ApplicationFailure.create({ type, message, details });

/**
 * How the action workflow lets decisions in: each must carry the api's signature over exactly
 * what it claims, by a key the worker accepts (none until the proposal is trusted). A
 * refused signature still reaches its handler (the validator lets it in, so history has it),
 * which records it and fails with `unsigned`. Deterministic: workflow code.
 */
export function createDecisionGate(actionId: string, status: () => ActionStatus) {
  let acceptedKeys: readonly string[] = [];
  const signatures = createSignatureCheck(() => acceptedKeys, actionId);
  return {
    /** The keys the worker accepts, once its first activity has trusted the proposal. */
    trust(keys: readonly string[]): void {
      acceptedKeys = keys;
    },
    /** A validator that lets a refused signature through to its handler, to be recorded. */
    validator:
      (kind: DecisionKind, refusalOf: (d: ActionDecisionInput) => DecisionRefusal | null) =>
      (d: ActionDecisionInput): void => {
        const untrusted =
          acceptedKeys.length === 0 && statusRefusal(status(), 'awaiting_approval', kind);
        if (untrusted) throw failureOf(untrusted);
        if (signatures.problemOf(d, kind)) return;
        const refusal = refusalOf(d);
        if (refusal) throw failureOf(refusal);
      },
    /**
     * Why the signature does not hold, or null when it does (synchronously, so the handler
     * takes the decision in the same turn its validator passed): the decision is then used.
     */
    signatureProblem(d: ActionDecisionInput, kind: DecisionKind): string | null {
      const problem = signatures.problemOf(d, kind);
      if (!problem && d.decision_id) signatures.markUsed(d.decision_id);
      return problem;
    },
    /** The failed update of a decision whose signature does not hold. */
    unsigned: (problem: string) =>
      ApplicationFailure.create({
        type: ACTION_ERRORS.unsigned,
        message: problem,
        nonRetryable: true,
      }),
  };
}
