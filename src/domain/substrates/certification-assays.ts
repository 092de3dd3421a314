import type { DeploymentRecord } from '../../store/substrate-deployments.repo';
import type { SubstrateSnapshotsRepo, TrailPoint } from '../../store/substrate-snapshots.repo';
import { createSubstrate, detectPeriod, restoreSubstrate, stateDigest } from './engine';
import type { AssayName, CertificationPack } from './registry/certification-packs';
import { envelopeRegistry } from './registry/registry';
import { snapshotTickBefore, type SubstrateStates } from './states';

export interface AssayResult {
  assay: AssayName;
  passed: boolean;
  detail: Record<string, unknown>;
}

export interface AssayReport {
  deployment_id: string;
  pack_id: string;
  tick: number;
  passed: boolean;
  assays: AssayResult[];
}

interface AssayContext {
  deployment: DeploymentRecord;
  snapshots: SubstrateSnapshotsRepo;
  states: SubstrateStates;
}

/** Where a deployment's assay report is stored. */
export const assayReportPath = (
  deploymentId: string,
  packId: string,
  tick: number,
  sha256: string,
): string => `substrates/${deploymentId}/assays/${packId}-tick-${tick}-${sha256.slice(0, 12)}.json`;

/** Runs with at most this many cell updates are replayed in full; longer ones by sample. */
const FULL_REPLAY_CELL_UPDATES = 2 ** 28;
/** Period detection looks this many cell updates ahead (at least 8, at most 4096 ticks). */
const PERIOD_CELL_UPDATES = 2 ** 28;

/** Runs a pack's assays against the deployment at its newest computed tick. */
export async function runAssays(ctx: AssayContext, pack: CertificationPack): Promise<AssayReport> {
  const assays: AssayResult[] = [];
  for (const { assay } of pack.assays) assays.push(await ASSAYS[assay](ctx));
  return {
    deployment_id: ctx.deployment._id,
    pack_id: pack.pack_id,
    tick: ctx.deployment.progress.tick,
    passed: assays.every((a) => a.passed),
    assays,
  };
}

const ASSAYS: Record<AssayName, (ctx: AssayContext) => Promise<AssayResult>> = {
  determinism,
  envelope_conformance: envelopeConformance,
  liveness,
  period,
};

interface DigestCheck {
  tick: number;
  expected: string;
  actual: string;
  from_tick: number;
}

/**
 * Determinism by replay digest. The state at tick 0 is rebuilt from the spec and compared
 * with the digest the compiling stage recorded; then recorded digests are replayed: every one when the run is small
 * (from the spec, straight through), else the first digest after the start of the first,
 * middle and last snapshot interval (each from its own snapshot, whose bytes are checked
 * against its digest first). Any mismatch fails the assay and is listed.
 */
async function determinism(ctx: AssayContext): Promise<AssayResult> {
  const { deployment } = ctx;
  const snapshots = memoized(ctx.snapshots);
  const { spec, progress, snapshot_interval: interval } = deployment;
  const checks: DigestCheck[] = [];
  const initial = createSubstrate(spec.scaffold, spec.params);
  if (deployment.initial_digest) {
    checks.push({
      tick: 0,
      from_tick: 0,
      expected: deployment.initial_digest,
      actual: initial.digest(),
    });
  }
  const cells = spec.params.width * spec.params.height;
  const full = cells * progress.tick <= FULL_REPLAY_CELL_UPDATES;
  const segmentStarts = full ? [0] : sampleSegments(progress.tick, interval);
  let replayed = 0;
  for (const start of segmentStarts) {
    const end = full ? progress.tick : Math.min(start + interval, progress.tick);
    const trail = await trailBetween(snapshots, deployment, start, end);
    const targets = full ? trail : trail.slice(0, 1);
    if (targets.length === 0) continue;
    let state = initial.clone();
    if (start > 0) {
      const snapshot = await snapshots.find(deployment._id, start);
      if (!snapshot) {
        checks.push({ tick: start, from_tick: start, expected: 'snapshot', actual: 'missing' });
        continue;
      }
      const bytes = snapshot.state.buffer;
      const { width, height } = spec.params;
      checks.push({
        tick: start,
        from_tick: start,
        expected: snapshot.digest,
        actual: stateDigest(width, height, bytes),
      });
      state = restoreSubstrate(spec.scaffold, spec.params, start, bytes);
    }
    for (const { tick, digest } of targets) {
      replayed += tick - state.tick;
      state.step(tick - state.tick);
      checks.push({ tick, from_tick: start, expected: digest, actual: state.digest() });
    }
  }
  const mismatches = checks.filter((c) => c.expected !== c.actual);
  return {
    assay: 'determinism',
    passed: mismatches.length === 0 && checks.length > 0,
    detail: {
      mode: full ? 'full_replay' : 'sampled_replay',
      ticks_replayed: replayed,
      digests_compared: checks.length,
      mismatches,
      compared: checks.slice(0, 64).map(({ tick, from_tick, actual }) => ({
        tick,
        from_tick,
        digest: actual,
      })),
    },
  };
}

/** Snapshot reads of one assay run, each read once (a snapshot can be a few MiB). */
function memoized(repo: SubstrateSnapshotsRepo): Pick<SubstrateSnapshotsRepo, 'find'> {
  const reads = new Map<string, ReturnType<SubstrateSnapshotsRepo['find']>>();
  return {
    find(deploymentId, tick) {
      const key = `${deploymentId}:${tick}`;
      let read = reads.get(key);
      if (!read) {
        read = repo.find(deploymentId, tick);
        reads.set(key, read);
      }
      return read;
    },
  };
}

/** Starts of the first, middle and last snapshot intervals of a run of `ticks`. */
function sampleSegments(ticks: number, interval: number): number[] {
  const last = snapshotTickBefore(Math.max(ticks - 1, 0), interval);
  const middle = snapshotTickBefore(Math.floor(last / 2), interval);
  return [...new Set([0, middle, last])];
}

/** Recorded `[tick, digest]` pairs in (start, end], read from the snapshots that hold them. */
async function trailBetween(
  snapshots: Pick<SubstrateSnapshotsRepo, 'find'>,
  deployment: DeploymentRecord,
  start: number,
  end: number,
): Promise<TrailPoint[]> {
  const trail: TrailPoint[] = [];
  const interval = deployment.snapshot_interval;
  for (let at = start + interval; ; at += interval) {
    const tick = Math.min(at, end);
    const snapshot = await snapshots.find(deployment._id, tick);
    if (snapshot) trail.push(...snapshot.trail.filter((p) => p.tick > start && p.tick <= end));
    if (tick >= end) break;
  }
  return trail;
}

/** The spec within its envelope, and the deploying stage within its wall-time bound. */
async function envelopeConformance(ctx: AssayContext): Promise<AssayResult> {
  const { spec, stage_timestamps: stamps } = ctx.deployment;
  const envelope = envelopeRegistry.find(spec.envelope);
  const breaches: string[] = [];
  if (!envelope) breaches.push(`unknown envelope ${spec.envelope}`);
  const { width, height, ticks } = spec.params;
  if (envelope) {
    if (width > envelope.max_width) breaches.push(`width ${width} > ${envelope.max_width}`);
    if (height > envelope.max_height) breaches.push(`height ${height} > ${envelope.max_height}`);
    if (ticks > envelope.max_ticks) breaches.push(`ticks ${ticks} > ${envelope.max_ticks}`);
  }
  const started = stamps['deploying'];
  const ended = stamps['observing'];
  const wallSeconds = started && ended ? (Date.parse(ended) - Date.parse(started)) / 1000 : null;
  const maxWall = envelope?.max_wall_seconds ?? ctx.deployment.max_wall_seconds;
  if (wallSeconds !== null && wallSeconds > maxWall) {
    breaches.push(`deploying took ${wallSeconds} s > ${maxWall} s`);
  }
  return {
    assay: 'envelope_conformance',
    passed: breaches.length === 0,
    detail: {
      envelope_id: spec.envelope,
      breaches,
      wall_seconds: wallSeconds,
      max_wall_seconds: maxWall,
    },
  };
}

async function liveness(ctx: AssayContext): Promise<AssayResult> {
  const state = await ctx.states.at(ctx.deployment, ctx.deployment.progress.tick);
  const population = state.population();
  return { assay: 'liveness', passed: population > 0, detail: { tick: state.tick, population } };
}

/** Passes when the newest state enters a cycle within the horizon. */
async function period(ctx: AssayContext): Promise<AssayResult> {
  const state = await ctx.states.at(ctx.deployment, ctx.deployment.progress.tick);
  const cells = state.width * state.height;
  const horizon = Math.max(8, Math.min(4096, Math.floor(PERIOD_CELL_UPDATES / cells)));
  const found = detectPeriod(state, horizon);
  return {
    assay: 'period',
    passed: found !== null,
    detail: {
      from_tick: state.tick,
      horizon_ticks: horizon,
      period: found?.period ?? null,
      first_repeat_tick: found ? found.first_repeat_tick : null,
    },
  };
}
