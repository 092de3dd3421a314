import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';

/**
 * `sha256:` + the hex sha256 of a value's canonical JSON (keys sorted, no spaces;
 * `safe-stable-stringify`). Ledger entries are chained with it: an entry's digest covers
 * every field but `digest`, `prev_digest` included, so each entry commits to all before it
 * (docs/proofs.md and docs/repair.md show the computation in a few lines of Node).
 */
export const canonicalDigest = (value: unknown): string =>
  `sha256:${createHash('sha256')
    .update(stringify(value) ?? '')
    .digest('hex')}`;

/** Whether a chained entry's `digest` is the canonical digest of the rest of it. */
export const digestHolds = ({ digest, ...body }: { digest: string }): boolean =>
  canonicalDigest(body) === digest;
