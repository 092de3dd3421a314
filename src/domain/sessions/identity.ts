import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import type { LineageLink } from '../../store/sessions.repo';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * A session's identity: sha256 over the runtime's identity digest, the session id and its
 * creation time. A `preserve` session runs every step under it.
 */
export const sessionIdentityDigest = (
  runtimeDigest: string,
  sessionId: string,
  createdAt: string,
): string => sha256(`session\u0000${runtimeDigest}\u0000${sessionId}\u0000${createdAt}`);

/** A `fresh` session's identity at one step: a new digest each step, derived from the session's. */
export const freshStepDigest = (sessionDigest: string, step: number): string =>
  sha256(`fresh-step\u0000${sessionDigest}\u0000${step}`);

/** The memory chain before any note: rooted in the session identity. */
export const memoryGenesis = (sessionDigest: string): string =>
  sha256(`memory\u0000${sessionDigest}`);

/** The memory chain after a note at `step`. */
export const memoryDigestAfter = (
  previous: string,
  step: number,
  note: { text: string; refs: string[] },
): string => sha256(`${previous}\u0000${step}\u0000${stringify(note)}`);

/** sha256 over the canonical JSON of a lineage link without its own digest. */
export function lineageLinkDigest(link: Omit<LineageLink, 'digest'>): string {
  const { _id, ...rest } = link;
  return sha256(stringify({ seq: _id, ...rest }) ?? '');
}
