import type { ChaosClient } from './client';

/** What the load had acknowledged (2xx), to be checked afterwards. */
export interface Accepted {
  /** Action id → the lane's kind and, for world changes, the object it changes. */
  actions: Map<string, { kind: 'world' | 'webhook'; objectId?: string }>;
  /** Acknowledged ingest `source_event_id`s. */
  events: Set<string>;
  /** Deployment id → the seed its spec used. */
  deployments: Map<string, number>;
  sessions: number;
  sessionSteps: number;
}

export interface LoadOptions {
  client: ChaosClient;
  proposerKey: string;
  approverKey: string;
  receiverUrl: string;
  /** World objects, one per world lane: a lane's changes of its object never race. */
  objectIds: string[];
  webhookLanes: number;
  ingestLanes: number;
  /** Stops starting new operations at this time (ms since the run's start). */
  until: number;
  sourceFamily: string;
}

export const DEPLOYMENT_SPEC = (seed: number) => ({
  scaffold: 'life-lattice',
  envelope: 'lattice-standard',
  params: { width: 32, height: 32, rule: 'B3/S23', ticks: 200, seed },
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs every lane until `until`; answers what was acknowledged. */
export async function runLoad(options: LoadOptions): Promise<Accepted> {
  const accepted: Accepted = {
    actions: new Map(),
    events: new Set(),
    deployments: new Map(),
    sessions: 0,
    sessionSteps: 0,
  };
  const lanes = [
    ...options.objectIds.map((objectId, i) => actionLane(options, accepted, i, { objectId })),
    ...Array.from({ length: options.webhookLanes }, (_, i) =>
      actionLane(options, accepted, options.objectIds.length + i, {}),
    ),
    ...Array.from({ length: options.ingestLanes }, (_, i) => ingestLane(options, accepted, i)),
    deploymentLane(options, accepted),
    sessionLane(options, accepted),
  ];
  await Promise.all(lanes);
  return accepted;
}

interface ActionAnswer {
  action_id: string;
  status: string;
  dry_run: { plan_digest: string } | null;
}

/**
 * Proposes, approves (the other principal, naming the plan) and executes, over and over: a
 * world change of the lane's own object, or a webhook to the receiver.
 */
async function actionLane(
  options: LoadOptions,
  accepted: Accepted,
  lane: number,
  target: { objectId?: string },
): Promise<void> {
  const { client } = options;
  for (let n = 0; client.now() < options.until; n += 1) {
    const world = target.objectId !== undefined;
    const body = world
      ? {
          action_kind: 'world.update_object',
          target: { world_object_ref: target.objectId },
          parameters: { patch: { status: `chaos-${lane}-${n}` } },
          bounds: { allowed_fields: ['status'] },
          reason: `chaos lane ${lane} change ${n}`,
        }
      : {
          action_kind: 'webhook.post',
          target: { url: options.receiverUrl },
          parameters: { body: { lane, n } },
          bounds: {},
          reason: `chaos lane ${lane} webhook ${n}`,
        };
    const op = world ? 'world' : 'webhook';
    const proposed = await client.call<ActionAnswer>(
      `${op}.propose`,
      options.proposerKey,
      'POST',
      '/v1/external-actions/propose',
      body,
      { idempotent: true },
    );
    if (!proposed.payload || proposed.status >= 300) continue;
    const actionId = proposed.payload.action_id;
    accepted.actions.set(actionId, { kind: op, objectId: target.objectId });
    // A world lane waits for its change before the next (a new plan on a moving object drifts).
    await driveToEnd(client, options.approverKey, actionId, world ? 90_000 : 0);
  }
}

/**
 * Approves and executes an action as far as the service lets it now; with `settleMs`, waits
 * until it is final. Used by the lanes and, after the load, for whatever they left half done.
 */
export async function driveToEnd(
  client: ChaosClient,
  approverKey: string,
  actionId: string,
  settleMs: number,
): Promise<string> {
  const path = `/v1/external-actions/${actionId}`;
  const deadline = client.now() + settleMs;
  for (;;) {
    const current = await client.call<ActionAnswer>('action.get', approverKey, 'GET', path);
    const status = current.payload?.status ?? 'unknown';
    if (status === 'awaiting_approval') {
      await client.call('action.approve', approverKey, 'POST', `${path}/approve`, {
        reason: 'chaos approval',
        plan_digest: current.payload?.dry_run?.plan_digest,
      });
    } else if (status === 'approved') {
      await client.call('action.execute', approverKey, 'POST', `${path}/execute`, {});
    } else if (status !== 'proposed' && status !== 'executing' && status !== 'unknown') {
      return status;
    }
    if (client.now() > deadline) return status;
    await pause(200);
  }
}

/** Ingests events, each with an id of its own: one at a time, and every other time a batch of 5. */
async function ingestLane(options: LoadOptions, accepted: Accepted, lane: number): Promise<void> {
  const { client } = options;
  const event = (sourceEventId: string, n: number) => ({
    source_family: options.sourceFamily,
    source_event_id: sourceEventId,
    event_type: 'chaos.tick',
    occurred_at: new Date().toISOString(),
    payload: { lane, n },
  });
  for (let n = 0; client.now() < options.until; n += 1) {
    if (n % 2 === 0) {
      const id = `ingest-${lane}-${n}`;
      const answer = await client.call(
        'ingest',
        options.proposerKey,
        'POST',
        '/v1/external-events/ingest',
        event(id, n),
        { idempotent: true },
      );
      if (answer.status === 200 || answer.status === 201) accepted.events.add(id);
    } else {
      const ids = Array.from({ length: 5 }, (_, k) => `ingest-${lane}-${n}-${k}`);
      const answer = await client.call<{ results: { status: string }[] }>(
        'ingest.batch',
        options.proposerKey,
        'POST',
        '/v1/external-events/ingest-batch',
        { events: ids.map((id) => event(id, n)) },
        { idempotent: true },
      );
      // Acknowledged: each item created or found a duplicate of itself (a retried batch).
      answer.payload?.results.forEach((result, k) => {
        if (answer.status === 200 && result.status !== 'rejected') accepted.events.add(ids[k]);
      });
    }
    await pause(50);
  }
}

/** Small deployments, one every few seconds. */
async function deploymentLane(options: LoadOptions, accepted: Accepted): Promise<void> {
  const { client } = options;
  for (let seed = 1; client.now() < options.until; seed += 1) {
    const answer = await client.call<{ deployment_id: string }>(
      'deploy',
      options.proposerKey,
      'POST',
      '/v1/substrates/deploy',
      { spec: DEPLOYMENT_SPEC(seed) },
      { idempotent: true },
    );
    if (answer.payload?.deployment_id && answer.status < 300) {
      accepted.deployments.set(answer.payload.deployment_id, seed);
    }
    await pause(4000);
  }
}

/** Sessions that list and note a few things, then close. */
async function sessionLane(options: LoadOptions, accepted: Accepted): Promise<void> {
  const { client } = options;
  while (client.now() < options.until) {
    const created = await client.call<{ session_id: string }>(
      'session.create',
      options.proposerKey,
      'POST',
      '/v1/sessions',
      {},
      { idempotent: true },
    );
    const sessionId = created.payload?.session_id;
    if (!sessionId || created.status >= 300) continue;
    accepted.sessions += 1;
    for (const command of ['list_objects', 'note', 'recall', 'close']) {
      const args = command === 'note' ? { text: 'chaos note' } : {};
      const step = await client.call(
        'session.step',
        options.proposerKey,
        'POST',
        `/v1/sessions/${sessionId}/step`,
        { input_packet: { command, args } },
      );
      if (step.status < 300) accepted.sessionSteps += 1;
    }
    await pause(500);
  }
}
