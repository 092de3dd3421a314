import { payloadOf, type ScenarioCaller } from './api-client';
import { IPD_PLAYERS, type ScenarioParams } from './registry';
import type { ScenarioName } from './schemas';

/** What a driver acts with: two principals of the run's own, and its fixtures. */
export interface DriveContext {
  runId: string;
  /** `scenario:<run_id>`: every record the run makes names it. */
  contextId: string;
  params: ScenarioParams;
  proposer: ScenarioCaller;
  approver: ScenarioCaller;
  /** Creates a world object for the run (there is no public route that creates objects). */
  seedObject(name: string, attributes: Record<string, unknown>): Promise<string>;
  /** Says the run is alive (an activity heartbeat). */
  heartbeat(detail: string): void;
}

/** What a run observed, by name (the names its expectation judges). */
export type Observations = Record<string, unknown>;

type Driver = (context: DriveContext) => Promise<Observations>;

interface Deployment {
  deployment_id: string;
  status: string;
  stage: string;
  initial_digest: string | null;
  final: { tick: number; population: number; digest: string } | null;
  error: string | null;
}

interface Observed {
  tick: number;
  population: number;
  digest: string;
  bounding_box: { x: number; y: number; width: number; height: number } | null;
}

/** Longest a deployment of a scenario may take. */
const DEPLOYMENT_WAIT_MS = 10 * 60_000;
const POLL_MS = 250;

async function deployLattice(
  context: DriveContext,
  params: { side: number; ticks: number; pattern: string },
): Promise<Deployment> {
  const started = payloadOf<Deployment>(
    'deploy',
    await context.proposer.post('/v1/substrates/deploy', {
      spec: {
        scaffold: 'life-lattice',
        params: {
          width: params.side,
          height: params.side,
          rule: 'B3/S23',
          ticks: params.ticks,
          pattern: params.pattern,
        },
      },
    }),
  );
  const deadline = Date.now() + DEPLOYMENT_WAIT_MS;
  for (;;) {
    const current = payloadOf<Deployment>(
      'read deployment',
      await context.proposer.get(`/v1/substrates/deployments/${started.deployment_id}`),
    );
    if (current.status !== 'running') return current;
    if (Date.now() > deadline) {
      throw new Error(`deployment ${started.deployment_id} still ${current.stage} after 10 min`);
    }
    context.heartbeat(`deployment ${started.deployment_id}: ${current.stage}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

const observe = async (context: DriveContext, deploymentId: string, tick: number) =>
  payloadOf<Observed>(
    `observe tick ${tick}`,
    await context.proposer.post('/v1/substrates/observe', { deployment_id: deploymentId, tick }),
  );

const gliderTransit: Driver = async (context) => {
  const side = Number(context.params['side']);
  const ticks = 4 * side * Number(context.params['laps']);
  const deployment = await deployLattice(context, { side, ticks, pattern: 'glider' });
  if (deployment.status !== 'ready') return { status: deployment.status, error: deployment.error };
  const [start, four, half] = await Promise.all(
    [0, 4, Math.floor(ticks / 2)].map((tick) => observe(context, deployment.deployment_id, tick)),
  );
  const box = (o: Observed) => o.bounding_box ?? { x: 0, y: 0 };
  return {
    deployment_id: deployment.deployment_id,
    status: deployment.status,
    final_tick: deployment.final?.tick ?? null,
    moved_after_4_ticks: [box(four).x - box(start).x, box(four).y - box(start).y],
    half_way_population: half.population,
    half_way_elsewhere: half.digest !== start.digest,
    final_population: deployment.final?.population ?? null,
    back_at_start: deployment.final?.digest === deployment.initial_digest,
  };
};

const rPentomino: Driver = async (context) => {
  const side = Number(context.params['side']);
  const deployment = await deployLattice(context, { side, ticks: 1103, pattern: 'r-pentomino' });
  if (deployment.status !== 'ready') return { status: deployment.status, error: deployment.error };
  const start = await observe(context, deployment.deployment_id, 0);
  return {
    deployment_id: deployment.deployment_id,
    status: deployment.status,
    initial_population: start.population,
    final_tick: deployment.final?.tick ?? null,
    final_population: deployment.final?.population ?? null,
  };
};

interface Action {
  action_id: string;
  status: string;
}

const approvalDrill: Driver = async (context) => {
  const objectId = await context.seedObject(`Drill document of ${context.runId}`, {
    status: 'draft',
  });
  const value = String(context.params['value']);
  const proposed = payloadOf<Action>(
    'propose',
    await context.proposer.post('/v1/external-actions/propose', {
      action_kind: 'world.update_object',
      target: { world_object_ref: objectId },
      parameters: { patch: { status: value } },
      bounds: { allowed_fields: ['status'] },
      shared_context_id: context.contextId,
      reason: `approval drill ${context.runId}`,
    }),
  );
  const path = `/v1/external-actions/${proposed.action_id}`;
  const selfApproval = await context.proposer.post(`${path}/approve`, {});
  const early = await context.approver.post(`${path}/execute`, {});
  const approval = await context.approver.post(`${path}/approve`, {});
  const executed = payloadOf<Action>('execute', await context.approver.post(`${path}/execute`, {}));
  const second = await context.approver.post(`${path}/execute`, {});
  const object = payloadOf<{ version: number; attributes: Record<string, unknown> }>(
    'read object',
    await context.proposer.get(`/v1/worlds/objects/${objectId}`),
  );
  return {
    action_id: proposed.action_id,
    object_id: objectId,
    proposed_status: proposed.status,
    self_approval: selfApproval.status,
    execute_before_approval: early.status,
    approval: approval.status,
    executed_status: executed.status,
    object_version: object.version,
    object_status: object.attributes['status'] ?? null,
    second_execute: second.status,
  };
};

const ipdClassic: Driver = async (context) => {
  const assay = payloadOf<{
    assay_id: string;
    totals: Record<string, number>;
    ranking: { player: string }[];
  }>(
    'run assay',
    await context.proposer.post('/v1/assays/social/run', {
      strategies: [...IPD_PLAYERS],
      turns: Number(context.params['turns']),
    }),
  );
  return {
    assay_id: assay.assay_id,
    totals: assay.totals,
    winner: assay.ranking[0]?.player ?? null,
    last: assay.ranking[assay.ranking.length - 1]?.player ?? null,
  };
};

const ingestReconcile: Driver = async (context) => {
  const objectId = await context.seedObject(`Order of ${context.runId}`, { status: 'open' });
  const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 12, minutes)).toISOString();
  const event = (id: string, minutes: number, state: string, ref = objectId) => ({
    source_family: 'scenario.orders',
    source_event_id: `${context.runId}-${id}`,
    event_type: 'order.status_changed',
    occurred_at: at(minutes),
    world_object_ref: ref,
    shared_context_id: context.contextId,
    payload: { state },
  });
  const first = event('1', 1, 'packed');
  const batch = payloadOf<{
    created: number;
    duplicates: number;
    rejected: number;
    results: { status: string; reconciliation?: string }[];
  }>(
    'ingest batch',
    await context.proposer.post('/v1/external-events/ingest-batch', {
      events: [
        first,
        event('2', 2, 'shipped'),
        event('0', 0, 'ordered'),
        first,
        event('x', 3, 'lost', `unknown-${context.runId}`),
      ],
    }),
  );
  const object = payloadOf<{ external_state: { fields?: Record<string, unknown> } }>(
    'read object',
    await context.proposer.get(`/v1/worlds/objects/${objectId}`),
  );
  return {
    object_id: objectId,
    created: batch.created,
    duplicates: batch.duplicates,
    rejected: batch.rejected,
    outcomes: batch.results.map((r) => `${r.status}:${r.reconciliation ?? 'none'}`),
    external_state: object.external_state.fields ?? object.external_state,
  };
};

export const DRIVERS: Record<ScenarioName, Driver> = {
  'glider-transit': gliderTransit,
  'r-pentomino-methuselah': rPentomino,
  'approval-drill': approvalDrill,
  'ipd-classic': ipdClassic,
  'ingest-reconcile': ingestReconcile,
};

/** Records the run's observations as one external event in its context (its evidence). */
export async function recordObservations(
  context: DriveContext,
  scenario: ScenarioName,
  observations: Observations,
): Promise<void> {
  payloadOf(
    'record observations',
    await context.proposer.post('/v1/external-events/ingest', {
      source_family: 'scenario',
      source_event_id: context.runId,
      event_type: 'scenario.observed',
      occurred_at: new Date().toISOString(),
      shared_context_id: context.contextId,
      payload: { scenario, observations },
    }),
  );
}
