import { MongoClient } from 'mongodb';
import { canonicalDigest } from '../src/lib/canonical-digest';
import { newId } from '../src/lib/ids';
import type { ActionLedgerEntry } from '../src/store/external-actions.repo';
import { postJson } from './lib/api';
import { startApiAndWorker } from './lib/processes';
import type { BenchContext, BenchReport } from './lib/report';
import { percentile, timed } from './lib/stats';
import { benchPort } from './lib/ports';

const API_PORT = benchPort(18490);
const ACTIONS = Number(process.env['BENCH_PROOF_ACTIONS'] ?? 10_000);
const SAMPLES = Number(process.env['BENCH_PROOF_SAMPLES'] ?? 3);
const EVENTS = ['proposed', 'awaiting_approval', 'approved', 'executing', 'executed'] as const;

/** `ACTIONS` actions' ledgers (five hash-chained entries each), written as the workflows do. */
async function seedLedgers(mongoUri: string): Promise<number> {
  const client = await MongoClient.connect(mongoUri);
  try {
    const ledger = client.db().collection<ActionLedgerEntry>('action_ledger');
    let written = 0;
    for (let start = 0; start < ACTIONS; start += 200) {
      const batch: ActionLedgerEntry[] = [];
      for (let i = start; i < Math.min(ACTIONS, start + 200); i += 1) {
        const actionId = newId('act');
        let prev: string | null = null;
        EVENTS.forEach((event, index) => {
          const body: Omit<ActionLedgerEntry, 'digest'> = {
            _id: `${actionId}:${index + 1}`,
            action_id: actionId,
            seq: index + 1,
            at: new Date(Date.UTC(2026, 10, 24, 0, 0, index)).toISOString(),
            event,
            status: event,
            action_kind: 'world.update_object',
            shared_context_id: `ctx-${i % 100}`,
            actor: { principal_id: 'prn_bench', key_id: 'key_bench' },
            detail: {},
            prev_digest: prev,
          };
          const entry = { ...body, digest: canonicalDigest(body) };
          prev = entry.digest;
          batch.push(entry);
        });
      }
      await ledger.insertMany(batch, { ordered: false });
      written += batch.length;
    }
    return written;
  } finally {
    await client.close();
  }
}

/** The bare pass: read the same documents with the driver and recompute each chain in a loop. */
async function barePass(mongoUri: string, limit: number): Promise<number> {
  const client = await MongoClient.connect(mongoUri);
  try {
    const rows = await client
      .db()
      .collection<ActionLedgerEntry>('action_ledger')
      .find({}, { batchSize: 1000, limit })
      .toArray();
    const heads = new Map<string, string>();
    let broken = 0;
    rows.sort((a, b) =>
      a.action_id < b.action_id ? -1 : a.action_id > b.action_id ? 1 : a.seq - b.seq,
    );
    for (const { digest, ...body } of rows) {
      if (canonicalDigest(body) !== digest) broken += 1;
      if ((heads.get(body.action_id) ?? null) !== body.prev_digest) broken += 1;
      heads.set(body.action_id, digest);
    }
    return broken;
  } finally {
    await client.close();
  }
}

/**
 * Proof checks (issue 14): `action_ledger_chain` over 10,000 actions' ledgers (50,000
 * entries) through `POST /v1/proofs/checks` (its workflow, one activity, the run recorded),
 * against a bare pass that reads the same documents with the driver and recomputes the same
 * sha256 chain in a plain loop. Records per second; target ≥ 0.7× bare.
 */
export async function proofsBench(ctx: BenchContext): Promise<BenchReport> {
  const servers = await startApiAndWorker({ ...ctx, suite: 'proofs', port: API_PORT });
  try {
    const entries = await seedLedgers(servers.mongoUri);
    const ours: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      const [run, oursMs] = await timed(() =>
        postJson<{ status: string; results: { status: string; checked: number }[] }>(
          servers.base,
          '/v1/proofs/checks',
          servers.key,
          { checks: ['action_ledger_chain'], max_records: entries },
        ),
      );
      if (run.status !== 'completed' || run.results[0]?.status !== 'passed') {
        throw new Error(`proof run did not pass in time: ${JSON.stringify(run).slice(0, 300)}`);
      }
      ours.push(oursMs);
      const [broken, bareMs] = await timed(() => barePass(servers.mongoUri, entries));
      if (broken !== 0) throw new Error(`bare pass found ${broken} broken links`);
      bare.push(bareMs);
    }
    const perSecond = (ms: number) => Math.round(entries / (ms / 1000));
    const [oursP50, bareP50] = [percentile(ours, 50), percentile(bare, 50)];
    const ratio = Math.round((bareP50 / oursP50) * 100) / 100;
    return {
      suite: 'proofs',
      description: `action_ledger_chain over ${ACTIONS.toLocaleString('en')} actions' ledgers (${entries.toLocaleString('en')} entries): POST /v1/proofs/checks (workflow, activity, run recorded) vs a bare driver read + sha256 chain loop (${SAMPLES} alternating samples)`,
      results: {
        'ours: proof run': {
          p50Ms: oursP50,
          maxMs: percentile(ours, 100),
          recordsPerSecond: perSecond(oursP50),
        },
        'bare: read + chain loop': {
          p50Ms: bareP50,
          maxMs: percentile(bare, 100),
          recordsPerSecond: perSecond(bareP50),
        },
      },
      ratios: { oursVsBare: ratio },
      figures: { entries, samples: SAMPLES },
      targets: [{ name: 'proof checks ≥ 0.7× bare (records per second)', met: ratio >= 0.7 }],
    };
  } finally {
    await servers.stop();
  }
}
