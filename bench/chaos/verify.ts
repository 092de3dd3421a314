import { createSubstrate } from '../../src/domain/substrates/engine';
import type { Answer, ChaosClient } from './client';
import { checksNotPassed, proofMaxRecords, type ProofCheckResult } from './proof-verdict';
import { DEPLOYMENT_SPEC, driveToEnd, type Accepted } from './load';

/** Figures of one kind of operation after the run. */
export interface Tally {
  accepted: number;
  completed: number;
  lost: number;
  duplicated: number;
  /** Ended otherwise than the happy path, by final status (e.g. `failed: 1`). */
  other: Record<string, number>;
}

export interface Verification {
  actions: Tally;
  webhooks: Tally & { redelivered: number };
  events: Tally;
  deployments: Tally & { digestMismatches: number };
  proofs: { status: string; failed: string[] };
  problems: string[];
}

const tally = (): Tally => ({ accepted: 0, completed: 0, lost: 0, duplicated: 0, other: {} });

/** Reads every page of a list. */
async function readAll<T>(client: ChaosClient, key: string, path: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const url: string = `${path}${sep}limit=500${cursor ? `&cursor=${cursor}` : ''}`;
    const page: Answer<{ items: T[]; next_cursor: string | null }> = await client.call(
      'verify.list',
      key,
      'GET',
      url,
    );
    if (!page.payload) throw new Error(`${path}: ${page.status} ${JSON.stringify(page.body)}`);
    items.push(...page.payload.items);
    cursor = page.payload.next_cursor;
  } while (cursor);
  return items;
}

/**
 * Checks what the load had acknowledged: every action ends (the verifier approves and
 * executes what the load left half done) and took effect once; every acknowledged event is
 * stored once; every deployment ends ready with the engine's digest; the proofs pass.
 */
export async function verify(
  client: ChaosClient,
  keys: { proposer: string; approver: string },
  accepted: Accepted,
  receiverDeliveries: Map<string, number>,
  sourceFamily: string,
): Promise<Verification> {
  const problems: string[] = [];
  const actions = tally();
  const webhooks = { ...tally(), redelivered: 0 };

  // Every accepted action to its end, a few at a time, all within three minutes.
  const settleUntil = client.now() + 180_000;
  const finals = new Map<string, string>();
  const ids = [...accepted.actions.keys()];
  for (let i = 0; i < ids.length; i += 8) {
    await Promise.all(
      ids.slice(i, i + 8).map(async (id) => {
        finals.set(id, await driveToEnd(client, keys.approver, id, settleUntil - client.now()));
      }),
    );
  }

  const worldEvents = new Map<string, number>();
  const objects = new Set([...accepted.actions.values()].flatMap((a) => a.objectId ?? []));
  for (const objectId of objects) {
    const history = await readAll<{ change: { action_id?: string } }>(
      client,
      keys.proposer,
      `/v1/worlds/history?object_id=${objectId}&kind=object.updated`,
    );
    for (const event of history) {
      const id = event.change.action_id;
      if (id) worldEvents.set(id, (worldEvents.get(id) ?? 0) + 1);
    }
  }

  for (const [id, { kind }] of accepted.actions) {
    const final = finals.get(id) ?? 'unknown';
    const target = kind === 'world' ? actions : webhooks;
    target.accepted += 1;
    const effects =
      kind === 'world' ? (worldEvents.get(id) ?? 0) : receiverDeliveries.has(id) ? 1 : 0;
    if (final === 'executed') {
      target.completed += 1;
      if (effects === 0) problems.push(`${id}: executed but no effect`);
    } else if (
      ['unknown', 'proposed', 'awaiting_approval', 'approved', 'executing'].includes(final)
    ) {
      target.lost += 1;
      problems.push(`${id}: still ${final} after the run`);
    } else {
      target.other[final] = (target.other[final] ?? 0) + 1;
      if (effects > 0) problems.push(`${id}: ${final} yet took effect`);
    }
    if (kind === 'world' && effects > 1) {
      target.duplicated += 1;
      problems.push(`${id}: ${effects} world history events`);
    }
    if (kind === 'webhook' && (receiverDeliveries.get(id) ?? 0) > 1) webhooks.redelivered += 1;
  }

  // Events: each acknowledged id stored once.
  const events = tally();
  const stored = await readAll<{ source_event_id: string }>(
    client,
    keys.proposer,
    `/v1/external-events/history?source_family=${sourceFamily}`,
  );
  const storedCounts = new Map<string, number>();
  for (const e of stored)
    storedCounts.set(e.source_event_id, (storedCounts.get(e.source_event_id) ?? 0) + 1);
  for (const id of accepted.events) {
    events.accepted += 1;
    const count = storedCounts.get(id) ?? 0;
    if (count === 0) {
      events.lost += 1;
      problems.push(`event ${id}: acknowledged, not stored`);
    } else events.completed += 1;
    if (count > 1) {
      events.duplicated += 1;
      problems.push(`event ${id}: stored ${count} times`);
    }
  }

  // Deployments: each ends ready with the digest the engine alone reaches.
  const deployments = { ...tally(), digestMismatches: 0 };
  for (const [id, seed] of accepted.deployments) {
    deployments.accepted += 1;
    let view: { status: string; stage: string; final: { digest: string } | null } | undefined;
    const deadline = client.now() + 180_000;
    for (;;) {
      view = (
        await client.call<NonNullable<typeof view>>(
          'verify.deployment',
          keys.proposer,
          'GET',
          `/v1/substrates/deployments/${id}`,
        )
      ).payload;
      if ((view && view.status !== 'running') || client.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    if (!view || view.status === 'running') {
      deployments.lost += 1;
      problems.push(`deployment ${id}: ${view ? `still ${view.stage}` : 'unreadable'}`);
      continue;
    }
    if (view.status !== 'ready') {
      deployments.other[view.stage] = (deployments.other[view.stage] ?? 0) + 1;
      problems.push(`deployment ${id}: ended ${view.stage}`);
      continue;
    }
    deployments.completed += 1;
    const spec = DEPLOYMENT_SPEC(seed);
    const engine = createSubstrate('life-lattice', { ...spec.params, density: 0.5 });
    engine.step(spec.params.ticks);
    if (view.final?.digest !== engine.digest()) {
      deployments.digestMismatches += 1;
      problems.push(`deployment ${id}: digest ${view.final?.digest} is not the engine's`);
    }
  }

  // The ledgers' proofs (issue 14), each reading everything the run stored.
  const maxRecords = proofMaxRecords({
    events: stored.length,
    actions: accepted.actions.size,
    deployments: accepted.deployments.size,
  });
  const proofs = await runProofs(client, keys.proposer, maxRecords);
  for (const check of proofs.failed) problems.push(`proof ${check} did not pass`);
  return { actions, webhooks, events, deployments, proofs, problems };
}

interface ProofRun {
  status: string;
  results: ProofCheckResult[];
}

async function runProofs(
  client: ChaosClient,
  key: string,
  maxRecords: number,
): Promise<{ status: string; failed: string[] }> {
  const started = await client.call<ProofRun>('verify.proofs', key, 'POST', '/v1/proofs/checks', {
    max_records: maxRecords,
  });
  let run = started.payload;
  const deadline = client.now() + 120_000;
  while (run && run.status === 'running' && client.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    run =
      (
        await client.call<{ newest_run: ProofRun | null }>(
          'verify.proofs',
          key,
          'GET',
          '/v1/proofs/summary',
        )
      ).payload?.newest_run ?? run;
  }
  if (!run) return { status: `unanswered (${started.status})`, failed: ['all'] };
  return {
    status: run.status,
    failed: checksNotPassed(run.results),
  };
}
