/**
 * An entry of a hash chain kept in slots (`lib/slot-chain.ts`): slots `_id` 1, 2, 3, …,
 * each naming the digest of the one before, so changing any entry breaks every later link.
 * The session lineage and the repair ledger are such chains.
 */
export interface ChainedSlot {
  _id: number;
  prev_digest: string;
  digest: string;
}
