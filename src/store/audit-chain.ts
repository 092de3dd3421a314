import { randomBytes } from 'node:crypto';
import { canonicalDigest } from '../lib/canonical-digest';
import { newId } from '../lib/ids';

/** An Ed25519 signature over a row's id and digest, by the public key `key_id` (hex). */
export interface RowSeal {
  key_id: string;
  signature: string;
}

/** What a row's checkpoint line says of it (the writer signs and appends it). */
export interface AuditRowClaim {
  chain_id: string;
  seq: number;
  audit_id: string;
  /** The row's digest as written. */
  head: string;
  /** The row's `at`. */
  at: string;
}

/**
 * What the audit's writer signs with: a seal per row, a line per row and per prune, outside
 * the database (the domain's audit seal implements it: `domain/governance/audit-seal.ts`).
 */
export interface AuditSealer {
  keyId: string;
  seal(rowId: string, digest: string): RowSeal;
  /** Appends the row's checkpoint line; throws when it cannot. */
  checkpoint(row: AuditRowClaim): Promise<void>;
  /** Appends a retention cut before rows dated before `cutoff` are deleted. */
  cut(cutoff: string): Promise<void>;
}

/**
 * Where an audit row stands in its writer's chain, and what vouches for it. Each writing
 * process keeps its own chain (`chain_id`, fresh at start): several api processes write
 * the audit at once and FerretDB has no lock, so one chain per writer needs no global
 * single writer, and within a process the appends are queued, so a chain never forks.
 */
export interface AuditChainFields {
  chain_id: string;
  /** 1, 2, … within the chain, in the order the rows were appended. */
  seq: number;
  /** The digest of the row before in the chain; null for the first. */
  prev_digest: string | null;
  /** `canonicalDigest` of the row without `digest` and `seal` (the ledger's recipe). */
  digest: string;
  /** Ed25519 by the ledger seal key over `["governed-runtime/audit-seal/v1", _id, digest]`. */
  seal: RowSeal;
}

/** Rows live under a fresh id each; a chain's are queued, so its seq, ids and links ascend. */
const freshChain = () => ({
  id: randomBytes(8).toString('hex'),
  seq: 0,
  head: null as string | null,
});

/**
 * This process's audit chain: `append` digests, seals and inserts a row as the next of the
 * chain, then appends its checkpoint line. Appends run one at a time, in call order.
 *
 * Invariants: the head moves only past a row that is in the store, so every row links to
 * one that was written; a row whose insert failed without being found under its id starts
 * a new chain (its slot may still be filled by a late write, which would then fork the old
 * one: a fresh chain never does). A failed checkpoint append fails the call (as the
 * ledger's does) with the row in: the next row's checkpoint reaches past it.
 */
export function createAuditChain<Content extends { at: string }>(deps: {
  sealer: Pick<AuditSealer, 'seal' | 'checkpoint'>;
  insert(row: Content & { _id: string } & AuditChainFields): Promise<unknown>;
  findById(id: string): Promise<unknown>;
}) {
  let chain = freshChain();
  let queue: Promise<unknown> = Promise.resolve();

  async function write(content: Content) {
    // A JSON round trip first: the digest must cover exactly what the store keeps, and the
    // driver would store a field set to `undefined` as null where the digest drops it.
    const body = {
      _id: newId('aud'),
      ...(JSON.parse(JSON.stringify(content)) as Content),
      chain_id: chain.id,
      seq: chain.seq + 1,
      prev_digest: chain.head,
    };
    const digest = canonicalDigest(body);
    const row = { ...body, digest, seal: deps.sealer.seal(body._id, digest) };
    try {
      await deps.insert(row);
    } catch (error) {
      const landed = await deps.findById(row._id).catch(() => null);
      if (!landed) {
        chain = freshChain();
        throw error;
      }
    }
    chain = { id: row.chain_id, seq: row.seq, head: digest };
    await deps.sealer.checkpoint({
      chain_id: row.chain_id,
      seq: row.seq,
      audit_id: row._id,
      head: digest,
      at: row.at,
    });
    return row;
  }

  return {
    append(content: Content) {
      const next = queue.then(() => write(content));
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
