import { canonicalDigest } from '../../lib/canonical-digest';
import type { DomainInfra } from '../infra';
import { Unavailable } from '../../lib/errors';
import type { RuntimeSessionQuery } from './schemas';
import { isoNow } from '../../lib/time';
import type { LineageLink } from '../../store/sessions.repo';
import { freshStepDigest } from '../sessions/identity';
import { linkProblem } from '../sessions/lineage';
import { loadSession } from '../sessions/sessions.service';

type Deps = Pick<DomainInfra, 'repos'>;

/** Newest lineage links the report reads, shows and verifies. */
export const LINEAGE_WINDOW = 20;

/** The runtime's identity record, or 503 before it exists. */
export async function runtimeRecord(deps: Deps) {
  const runtime = await deps.repos.runtime.get();
  if (!runtime) throw new Unavailable('runtime record not initialised yet');
  return runtime;
}

const linkView = (link: LineageLink) => ({
  kind: 'session' as const,
  id: link.session_id,
  seq: link._id,
  continuity_mode: link.continuity_mode,
  identity_digest: link.identity_digest,
  digest: link.digest,
  at: link.created_at,
});

/**
 * Sessions (in lineage order, newest first) with checkpoints (newest first) placed among
 * them by time; neither list is reordered (sessions made at once may not be in time order).
 */
function mergeNewestFirst<A extends { at: string }, B extends { at: string }>(
  sessions: A[],
  checkpoints: B[],
): (A | B)[] {
  const merged: (A | B)[] = [];
  let c = 0;
  for (const session of sessions) {
    while (c < checkpoints.length && checkpoints[c].at > session.at) merged.push(checkpoints[c++]);
    merged.push(session);
  }
  return [...merged, ...checkpoints.slice(c)];
}

/** Links `from`..`to` (inclusive, newest first), read by `_id` as stored now (no cache). */
async function readLinks(deps: Deps, from: number, to: number): Promise<(LineageLink | null)[]> {
  const seqs: number[] = [];
  for (let seq = to; seq >= Math.max(1, from); seq -= 1) seqs.push(seq);
  return Promise.all(seqs.map((seq) => deps.repos.sessions.readLink(seq)));
}

/** Problems of the newest `shown` links of `read` (newest first, starting at `topSeq`). */
function problemsOf(
  read: (LineageLink | null)[],
  shown: number,
  topSeq: number,
  runtimeDigest: string,
): string[] {
  const problems: string[] = [];
  for (let index = 0; index < shown; index += 1) {
    const link = read[index];
    const problem = link
      ? linkProblem(link, read[index + 1] ?? null, runtimeDigest)
      : `link ${topSeq - index} is missing`;
    if (problem) problems.push(problem);
  }
  return problems;
}

/**
 * Continuity: the runtime's identity lineage across sessions. The lineage is a hash chain of
 * one link per session, rooted in the runtime's identity digest; the report reads the newest
 * `LINEAGE_WINDOW` links (and the one before them) by `_id`, verifies each (digest, chaining,
 * counts, the session identity derived from the runtime's) and counts from the head link.
 * With `session_id` it verifies that session's link and that its newest step ran under the
 * identity its mode promises. Reads only; see docs/sessions.md.
 */
export async function getContinuity(deps: Deps, query: RuntimeSessionQuery) {
  const runtime = await runtimeRecord(deps);
  const focus = query.session_id ? await loadSession(deps, query.session_id) : undefined;
  const head = await deps.repos.sessions.lineageHead();
  const headSeq = head?._id ?? 0;
  const windowTop = focus ? focus.session.lineage_seq : headSeq;
  const windowSize = focus ? 1 : LINEAGE_WINDOW;
  // One link more than shown: the oldest shown link is verified against its predecessor.
  const read = await readLinks(deps, windowTop - windowSize, windowTop);
  const shown = read.slice(0, Math.min(windowSize, windowTop));
  const problems = problemsOf(read, shown.length, windowTop, runtime.identity_digest);

  let session: Record<string, unknown> | undefined;
  if (focus) {
    const { session: record, newest, fold } = focus;
    const link = shown[0];
    if (link && (link.session_id !== record._id || link.identity_digest !== record.identity_digest))
      problems.push(`link ${record.lineage_seq} does not name session ${record._id}`);
    const expected =
      newest &&
      (record.continuity_mode === 'preserve'
        ? record.identity_digest
        : freshStepDigest(record.identity_digest, newest.step));
    if (newest && newest.identity_digest !== expected) {
      problems.push(`session ${record._id}: step ${newest.step} ran under another identity`);
    }
    session = {
      session_id: record._id,
      continuity_mode: record.continuity_mode,
      identity_stable: record.continuity_mode === 'preserve',
      identity_digest: record.identity_digest,
      current_identity_digest: newest?.identity_digest ?? record.identity_digest,
      lineage_seq: record.lineage_seq,
      state: fold.closed ? 'closed' : 'active',
      steps: fold.steps,
      memory_digest: record.continuity_mode === 'preserve' ? fold.memory_digest : null,
    };
  }

  const links = shown.filter((link): link is LineageLink => link !== null);
  // Completed checkpoints belong to the runtime's lineage too: its state, copied and sealed.
  const [checkpointRows, checkpointCount] = focus
    ? [[], 0]
    : await Promise.all([
        deps.repos.checkpoints.list({ status: 'completed' }, LINEAGE_WINDOW),
        deps.repos.checkpoints.countCompleted(),
      ]);
  const checkpoints = checkpointRows.slice(0, LINEAGE_WINDOW).map((checkpoint) => ({
    kind: 'checkpoint' as const,
    id: checkpoint._id,
    identity_digest: runtime.identity_digest,
    manifest_sha256: checkpoint.manifest?.sha256 ?? null,
    at: checkpoint.completed_at ?? checkpoint.updated_at,
  }));
  const sessions = head?.sessions ?? 0;
  const preserved = head?.preserved ?? 0;
  const inputs = {
    runtime: {
      runtime_id: runtime.runtime_id,
      identity_digest: runtime.identity_digest,
      created_at: runtime.created_at,
    },
    head: head ? { seq: head._id, digest: head.digest } : null,
    links: read.map((link) => link?.digest ?? null),
    checkpoints: checkpoints.map((checkpoint) => [checkpoint.id, checkpoint.manifest_sha256]),
    newest_step: focus?.newest ? { id: focus.newest._id, at: focus.newest.at } : null,
  };
  const times = [
    runtime.created_at,
    ...links.map((link) => link.created_at),
    ...checkpoints.map((checkpoint) => checkpoint.at),
    ...(focus?.newest ? [focus.newest.at] : []),
  ].sort();
  return {
    ...(query.session_id ? { session_id: query.session_id } : {}),
    runtime_id: runtime.runtime_id,
    identity_digest: runtime.identity_digest,
    lineage_intact: problems.length === 0,
    problems,
    verified_links: links.length,
    lineage: mergeNewestFirst(links.map(linkView), checkpoints),
    sessions,
    preserved,
    fresh: sessions - preserved,
    checkpoints: checkpointCount,
    ...(session ? { session } : {}),
    window: { from: times[0], to: times[times.length - 1] },
    inputs_digest: canonicalDigest(inputs),
    computed_at: isoNow(),
  };
}
