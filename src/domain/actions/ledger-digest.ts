import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import type { ActionLedgerEntry } from '../../store/external-actions.repo';

/**
 * An action ledger entry's digest: `sha256:` + hex sha256 of the canonical JSON (keys
 * sorted, no spaces; `safe-stable-stringify`) of the entry without `digest`, `prev_digest`
 * included, so each entry commits to the one before it (docs/proofs.md has the recipe).
 */
export const ledgerDigest = (entry: Omit<ActionLedgerEntry, 'digest'>): string =>
  `sha256:${createHash('sha256')
    .update(stringify(entry) ?? '')
    .digest('hex')}`;
