import type { Repos } from '../../store';
import type { ActionLedgerEntry } from '../../store/external-actions.repo';
import type { ActionActor, ActionState } from '../../workflows/external-action.contract';
import type { Notify } from '../notifications/notifiable-event';
import { NOTIFICATION_EVENTS, type NotificationEvent } from '../notifications/schemas';
import { actionRecordOf } from './action-record';
import { diffSummary, listEntryOf } from './action-views';
import { canonicalDigest } from '../../lib/canonical-digest';
import { isFinalStatus, ledgerAgreement, type LedgerAgreement } from './ledger-agreement';

/**
 * A batch the ledger contradicts (docs/actions.md, "Resets"): an entry already at one of its
 * `seq`s records another transition, or the ledger ended the action beyond it. Nothing of the
 * batch was projected; the caller refuses the run (`refuseRun`).
 */
export class LedgerDisagreement extends Error {
  constructor(readonly agreement: Extract<LedgerAgreement, { agrees: false }>) {
    super(agreement.problem);
    this.name = 'LedgerDisagreement';
  }
}
import type { LedgerSealer } from './ledger-seal';
import type { CheckpointIndex } from './checkpoint-index';
import { LedgerOffCheckpoint, batchCheckpointMismatch } from './ledger-checkpoint-check';

/** One transition of an action: its state after it, and what the ledger says of it. */
export interface RecordTransitionInput {
  state: ActionState;
  /** When it happened (the workflow's clock); the status's own time when absent. */
  at?: string;
  event: string;
  actor: ActionActor | null;
  detail?: Record<string, unknown>;
}

/** Who records: the workflow run whose activity writes (Temporal's word), or the api (null). */
export interface Recorder {
  run_id: string | null;
}

export interface TransitionRecorderDeps {
  repos: Pick<Repos, 'externalActions' | 'actionInbox'>;
  /** Tells subscribers about the transition (`action.<event>`), when one is wanted. */
  notify?: Notify;
  /** Seals each entry and checkpoints each batch with the service's ledger key. */
  ledgerSeal: Pick<LedgerSealer, 'seal' | 'checkpoint'>;
  /**
   * The signed checkpoints, read before each batch: a batch the ledger's checkpoints say
   * would be written over a cut or rewritten ledger is refused (`LedgerOffCheckpoint`).
   */
  checkpoints?: CheckpointIndex;
}

/** The ledger entry of a transition, chained to `prevDigest`, before its digest. */
export function ledgerBodyOf(
  input: RecordTransitionInput,
  prevDigest: string | null,
  recorder: Recorder = { run_id: null },
): Omit<ActionLedgerEntry, 'digest' | 'seal'> {
  const { state } = input;
  return {
    ...(recorder.run_id ? { run_id: recorder.run_id } : {}),
    _id: `${state.action_id}:${state.seq}`,
    action_id: state.action_id,
    seq: state.seq,
    at: input.at ?? state.updated_at,
    event: input.event,
    status: state.status,
    action_kind: state.action_kind,
    shared_context_id: state.shared_context_id,
    actor: input.actor,
    detail: input.detail ?? {},
    prev_digest: prevDigest,
  };
}

/**
 * What records an action's transitions: the action's workflow (through its record activity)
 * and, for an action whose workflow was ended from Temporal, the api (`aborted`). Both write
 * the same way, so the ledger has one recipe and one writer's rules.
 */
export function createTransitionRecorder(deps: TransitionRecorderDeps) {
  const { repos } = deps;
  /** Tells subscribers about a recorded transition, when its event is one they may want. */
  const notifyOf = async ({ state, event }: RecordTransitionInput): Promise<void> => {
    const name = `action.${event}`;
    if (!deps.notify || !NOTIFIED_ACTION_EVENTS.has(name)) return;
    await deps.notify({
      event: name as NotificationEvent,
      event_id: `${state.action_id}:${state.seq}`,
      subject: { type: 'action', id: state.action_id },
      at: state.updated_at,
      data: actionNotice(state),
      action: {
        action_kind: state.action_kind,
        shared_context_id: state.shared_context_id,
        expires_at: state.expires_at,
      },
    });
  };
  /**
   * Appends the transitions, in order, to the action's hash-chained ledger (the first
   * chained to its state's `ledger_head`), then writes the projection of the last one and
   * tells subscribers of each; returns the new ledger head (the stored one, on a retry).
   */
  return async function appendTransitionsToLedger(
    inputs: RecordTransitionInput[],
    recorder: Recorder = { run_id: null },
  ): Promise<string> {
    const last = inputs[inputs.length - 1];
    if (!last) throw new Error('no transition to record');
    if (deps.checkpoints) {
      const { action_id, seq } = inputs[0].state;
      const mismatch = await batchCheckpointMismatch(
        deps.checkpoints,
        repos.externalActions,
        action_id,
        seq,
      );
      // Before any insert: the entries the checkpoints name stay missing, or as rewritten.
      if (mismatch) throw new LedgerOffCheckpoint(mismatch);
    }
    const entries: ActionLedgerEntry[] = [];
    let prevDigest = inputs[0].state.ledger_head;
    let fresh = true;
    for (const input of inputs) {
      const body = ledgerBodyOf(input, prevDigest, recorder);
      const digest = canonicalDigest(body);
      const written = await repos.externalActions.insertLedgerOnce({
        ...body,
        digest,
        seal: deps.ledgerSeal.seal(body._id, digest),
      });
      fresh &&= written.fresh;
      entries.push(written.stored);
      prevDigest = written.stored.digest;
    }
    // Every writer records each `seq` in order, so a batch whose entries were all new
    // continues the ledger. One that found an entry there already is a retry, a reset's run
    // redoing what the ledger holds, or a run the ledger contradicts: judged on the ledger.
    if (!fresh) await judgeAgainstLedger(repos, inputs, recorder);
    const { action_id } = last.state;
    const ended = entries.find((entry) => isFinalStatus(entry.status));
    // After the entries are in (a checkpoint never names an entry that is not, nor an end
    // an entry that is not), before the projection; a retry appends the same (seq, head)
    // again, which the checks allow, and finds its end written.
    await Promise.all([
      deps.ledgerSeal.checkpoint({
        action_id,
        from_seq: entries[0].seq,
        seq: entries[entries.length - 1].seq,
        head: prevDigest!,
      }),
      ended &&
        repos.externalActions.markEnded({
          _id: action_id,
          status: ended.status,
          seq: ended.seq,
          digest: ended.digest,
        }),
    ]);
    await repos.externalActions.projectTransitions(
      entries,
      {
        ...actionRecordOf(last.state),
        approved_by: last.state.approvals.map((approval) => approval.principal_id),
        eligible: eligibleTokens(last.state.rule),
      },
      fresh,
      // Only these statuses change the inbox (entering it, or the ways out of it).
      async (record) =>
        INBOX_STATUSES.has(record.status) &&
        repos.actionInbox.project(listEntryOf(record), {
          fresh,
          arriving: inputs.some((input) => input.event === 'awaiting_approval'),
        }),
    );
    for (const input of inputs) await notifyOf(input);
    return prevDigest!;
  };
}

export type RecordActionTransitions = ReturnType<typeof createTransitionRecorder>;

/** Throws `LedgerDisagreement` when the ledger contradicts the batch. */
async function judgeAgainstLedger(
  repos: TransitionRecorderDeps['repos'],
  inputs: RecordTransitionInput[],
  recorder: Recorder,
): Promise<void> {
  const first = inputs[0].state;
  const ledger = await repos.externalActions.entriesFrom(first.action_id, first.seq - 1);
  const agreement = ledgerAgreement(
    {
      head: first.ledger_head,
      run_id: recorder.run_id,
      entries: inputs.map(({ state, event, actor, detail }) => ({
        seq: state.seq,
        event,
        status: state.status,
        actor,
        detail,
      })),
    },
    ledger,
  );
  if (!agreement.agrees) throw new LedgerDisagreement(agreement);
}

/** Statuses that change the inbox: entering it, or leaving it from `awaiting_approval`. */
const INBOX_STATUSES = new Set<ActionState['status']>([
  'awaiting_approval',
  'approved',
  'rejected',
  'expired',
  'aborted',
]);

const NOTIFIED_ACTION_EVENTS = new Set<string>(
  NOTIFICATION_EVENTS.filter((event) => event.startsWith('action.')),
);

/** What a notification about an action says: enough to decide whether to look. */
function actionNotice(state: ActionState): Record<string, unknown> {
  return {
    action_id: state.action_id,
    action_kind: state.action_kind,
    status: state.status,
    target: state.target,
    reason: state.reason,
    diff_summary: diffSummary(state),
    proposed_by: state.proposed_by.principal_id,
    approvals: state.approvals.length,
    required_approvals: state.bounds.required_approvals,
    rule_id: state.rule?.rule_id ?? null,
    shared_context_id: state.shared_context_id,
    expires_at: state.expires_at,
    workflow_id: state.workflow_id,
  };
}

/** Who may decide under the rule, as tokens the inbox query matches with one `$in`. */
export function eligibleTokens(rule: ActionState['rule']): string[] {
  if (!rule || (rule.approver_roles.length === 0 && rule.approver_principals.length === 0)) {
    return ['*'];
  }
  return [
    ...rule.approver_principals.map((id) => `principal:${id}`),
    ...rule.approver_roles.map((role) => `role:${role}`),
  ];
}
