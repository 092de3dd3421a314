import type { DomainInfra } from '../infra';
import { Conflict } from '../../lib/errors';
import type { LineageLink, SessionContinuityMode } from '../../store/sessions.repo';
import { lineageLinkDigest, sessionIdentityDigest } from './identity';

/** Most attempts at the next lineage slot before answering 409 (others keep winning it). */
const MAX_APPEND_ATTEMPTS = 64;

/** What a new session brings to the lineage. */
export interface LineageEntry {
  session_id: string;
  continuity_mode: SessionContinuityMode;
  identity_digest: string;
  created_at: string;
}

/**
 * Appends the session to the runtime's identity lineage: the next free slot, chained to the
 * link before it (the first to the runtime's identity digest). Losing the slot to another
 * session means reading the new head and chaining to it instead.
 */
export async function appendLineage(
  deps: Pick<DomainInfra, 'repos'>,
  runtimeDigest: string,
  entry: LineageEntry,
): Promise<LineageLink> {
  return deps.repos.sessions.appending(async () => {
    let head = await deps.repos.sessions.lineageLastKnown();
    for (let attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt += 1) {
      const seq = (head?._id ?? 0) + 1;
      const link: Omit<LineageLink, 'digest'> = {
        _id: seq,
        ...entry,
        sessions: seq,
        preserved: (head?.preserved ?? 0) + (entry.continuity_mode === 'preserve' ? 1 : 0),
        prev_digest: head?.digest ?? runtimeDigest,
      };
      const full: LineageLink = { ...link, digest: lineageLinkDigest(link) };
      if (await deps.repos.sessions.appendLink(full)) return full;
      head = await deps.repos.sessions.lineageHead();
    }
    throw new Conflict('too many sessions created at once; retry', {
      retryAfterSeconds: 1,
    });
  });
}

/** Why a link does not verify, or null when it does. */
export function linkProblem(
  link: LineageLink,
  previous: LineageLink | null,
  runtimeDigest: string,
): string | null {
  const { digest, ...body } = link;
  if (lineageLinkDigest(body) !== digest) return `link ${link._id}: digest does not recompute`;
  const expectedPrev = link._id === 1 ? runtimeDigest : previous?.digest;
  if (expectedPrev !== undefined && link.prev_digest !== expectedPrev) {
    return `link ${link._id}: not chained to link ${link._id - 1}`;
  }
  if (link._id > 1 && !previous) return `link ${link._id}: link ${link._id - 1} is missing`;
  if (link.sessions !== link._id) return `link ${link._id}: session count out of step`;
  const preservedBefore = link._id === 1 ? 0 : (previous?.preserved ?? 0);
  if (link.preserved - preservedBefore !== (link.continuity_mode === 'preserve' ? 1 : 0)) {
    return `link ${link._id}: preserved count out of step`;
  }
  const identity = sessionIdentityDigest(runtimeDigest, link.session_id, link.created_at);
  if (identity !== link.identity_digest) {
    return `link ${link._id}: session identity not derived from the runtime identity`;
  }
  return null;
}
