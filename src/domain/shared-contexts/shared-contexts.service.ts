import type { DomainInfra } from '../infra';
import { Unavailable } from '../../lib/errors';
import { SharedContextIdKey } from '../../workflows/shared.contract';
import type { StoredReconciliation } from '../../store/external-events.repo';
import type { WitnessInput } from '../witnesses/inputs';
import { loadContext, timesOf, type ContextRecords } from './records';
import {
  LISTED,
  aboutnessOf,
  commitmentsOf,
  contextHeader,
  disagreementOf,
  reconciliationsOf,
  summaryOf,
} from './views';

type Deps = Pick<DomainInfra, 'repos' | 'witnesses'>;

/** Most executions the workflow summary reads from Temporal visibility. */
export const MAX_VISIBLE_WORKFLOWS = 1_000;
/** Newest executions the workflow summary lists. */
const NEWEST = 20;

/** How each of the context's events reconciled, and those rows as witness inputs. */
function outcomesOf(records: ContextRecords) {
  const outcomes = new Map<string, StoredReconciliation['outcome']>();
  for (const event of records.events) {
    const row = records.fold.reconciliations.get(event.event_id);
    if (row) outcomes.set(event.event_id, row.outcome);
  }
  const inputs: WitnessInput[] = [...outcomes].map(([id, outcome]) => ({
    kind: 'reconciliation',
    id,
    version: outcome,
  }));
  return { outcomes, inputs };
}

/** `GET /v1/shared-contexts/{id}`: first and last activity, counts, participants. */
export async function getContext(deps: Deps, contextId: string, now = new Date()) {
  const records = await loadContext(deps, contextId);
  return { ...contextHeader('shared_context', records, now), ...summaryOf(records) };
}

export async function contextAboutness(deps: Deps, contextId: string, now = new Date()) {
  const records = await loadContext(deps, contextId);
  return { ...contextHeader('shared_aboutness', records, now), ...aboutnessOf(records) };
}

export async function contextCommitments(deps: Deps, contextId: string, now = new Date()) {
  const records = await loadContext(deps, contextId);
  return { ...contextHeader('shared_commitments', records, now), ...commitmentsOf(records) };
}

/** A view that also reads how each of the context's events reconciled. */
const withOutcomes =
  <V>(
    witness: string,
    view: (records: ContextRecords, outcomes: ReturnType<typeof outcomesOf>['outcomes']) => V,
  ) =>
  async (deps: Deps, contextId: string, now = new Date()) => {
    const records = await loadContext(deps, contextId);
    const { outcomes, inputs } = outcomesOf(records);
    return { ...contextHeader(witness, records, now, inputs), ...view(records, outcomes) };
  };

export const contextDisagreement = withOutcomes('shared_disagreement', disagreementOf);
export const contextReconciliation = withOutcomes(
  'shared_external_reconciliation',
  reconciliationsOf,
);

/**
 * `evidence`: the hash-chained ledger entries of the context's actions, its events with
 * their payload digests, and the checkpoints completed since it began (their manifests
 * cover its records).
 */
export async function contextEvidence(deps: Deps, contextId: string, now = new Date()) {
  const records = await loadContext(deps, contextId);
  const { ledger } = records;
  const checkpoints = await deps.repos.checkpoints.list({ status: 'completed' }, 10);
  const since = timesOf(records).sort()[0] ?? now.toISOString();
  const covering = checkpoints.filter((c) => (c.completed_at ?? '') >= since);
  const extra: WitnessInput[] = [
    ...ledger.map((entry) => ({ kind: 'action_ledger', id: entry._id, version: entry.digest })),
    ...covering.map((c) => ({ kind: 'checkpoint', id: c._id, version: c.manifest?.sha256 ?? '' })),
  ];
  return {
    ...contextHeader('shared_evidence', records, now, extra),
    ledger: ledger.slice(-LISTED).map((entry) => ({
      entry_id: entry._id,
      action_id: entry.action_id,
      seq: entry.seq,
      event: entry.event,
      at: entry.at,
      prev_digest: entry.prev_digest,
      digest: entry.digest,
    })),
    events: records.events.slice(0, LISTED).map((event) => ({
      event_id: event.event_id,
      source_family: event.source_family,
      source_event_id: event.source_event_id,
      payload_sha256: event.payload_sha256,
    })),
    checkpoints: covering.map((c) => ({
      checkpoint_id: c._id,
      completed_at: c.completed_at,
      manifest_sha256: c.manifest?.sha256 ?? null,
    })),
    counts: { ledger_entries: ledger.length, events: records.events.length },
  };
}

/**
 * `workflow-summary`: the context's workflows from Temporal visibility
 * (`SharedContextId = "<id>"`): counts by workflow type and execution status, and the newest
 * executions with links to the Temporal UI.
 */
export async function contextWorkflowSummary(
  deps: Pick<DomainInfra, 'config' | 'witnesses' | 'temporal'>,
  contextId: string,
  now = new Date(),
) {
  const records = await loadContext(deps, contextId);
  const executions: {
    workflow_id: string;
    run_id: string;
    type: string;
    status: string;
    start_time: string;
    close_time: string | null;
  }[] = [];
  try {
    const client = await deps.temporal.getClient();
    const query = `${SharedContextIdKey.name} = "${contextId}"`;
    for await (const execution of client.workflow.list({ query })) {
      executions.push({
        workflow_id: execution.workflowId,
        run_id: execution.runId,
        type: execution.type,
        status: execution.status.name,
        start_time: execution.startTime.toISOString(),
        close_time: execution.closeTime?.toISOString() ?? null,
      });
      if (executions.length >= MAX_VISIBLE_WORKFLOWS) break;
    }
  } catch (error) {
    throw new Unavailable('Temporal visibility is unavailable; retry', {
      extra: { cause: error instanceof Error ? error.message : String(error) },
    });
  }
  const byType: Record<string, Record<string, number>> = {};
  for (const execution of executions) {
    const statuses = (byType[execution.type] ??= {});
    statuses[execution.status] = (statuses[execution.status] ?? 0) + 1;
  }
  const ui = `${deps.config.temporalUiUrl}/namespaces/${deps.temporal.namespace}/workflows`;
  const newest = [...executions]
    .sort((a, b) => b.start_time.localeCompare(a.start_time))
    .slice(0, NEWEST)
    .map((execution) => ({
      ...execution,
      ui_url: `${ui}/${encodeURIComponent(execution.workflow_id)}/${execution.run_id}/history`,
    }));
  const extra = executions.map((e) => ({ kind: 'workflow', id: e.run_id, version: e.status }));
  return {
    ...contextHeader('shared_workflow_summary', records, now, extra),
    query: `${SharedContextIdKey.name} = "${contextId}"`,
    total: executions.length,
    by_type: byType,
    newest,
  };
}
