import stringify from 'safe-stable-stringify';
import type { DomainInfra } from '../infra';
import { notFound } from '../../lib/errors';
import type { RepairLedgerEntry } from '../../store/repairs.repo';
import { digestHolds } from '../../lib/canonical-digest';
import { firstBrokenEntry, LEDGER_GENESIS } from './ledger';
import type { RepairCertificateQuery } from './schemas';

export const CERTIFICATE_VERSION = 'governed-runtime/repair-certificate/v1';
/** Most ledger entries one whole-ledger certificate lists (the newest). */
export const MAX_CERTIFIED_ENTRIES = 1_000;

type Deps = Pick<DomainInfra, 'decisionSigner' | 'repos'>;

/**
 * Whether an object's entries hold: each matches its digest and links to the entry in the
 * slot before it (read by `_id`). Answers the first slot that does not, or null.
 */
async function firstBrokenOfObject(
  deps: Deps,
  entries: readonly RepairLedgerEntry[],
): Promise<number | null> {
  for (const entry of entries) {
    if (!digestHolds(entry)) return entry._id;
    const previous = entry._id > 1 ? await deps.repos.repairs.ledgerEntry(entry._id - 1) : null;
    const expected = previous ? previous.digest : LEDGER_GENESIS;
    if (entry.prev_digest !== expected) return entry._id;
    if (previous && !digestHolds(previous)) return previous._id;
  }
  return null;
}

/**
 * `GET /v1/repair/certificate`: the repair ledger's head and length, the entries covered
 * (one object's, or the newest `MAX_CERTIFIED_ENTRIES`), and whether they held when issued,
 * signed with the service's Ed25519 key. The signed bytes travel as they are (base64), so a
 * verifier needs no canonical JSON of its own (docs/repair.md).
 */
export async function repairCertificate(deps: Deps, query: RepairCertificateQuery) {
  const objectId = query.object_id ?? null;
  if (objectId && !(await deps.repos.worldObjects.exists(objectId))) {
    throw notFound(`world object ${objectId}`);
  }
  const head = await deps.repos.repairs.ledgerHead();
  const count = head?._id ?? 0;
  const records = objectId
    ? await deps.repos.repairs.ledgerOf(objectId)
    : await deps.repos.repairs.ledgerRange(
        Math.max(1, count - MAX_CERTIFIED_ENTRIES + 1),
        MAX_CERTIFIED_ENTRIES,
      );
  const brokenAt = objectId
    ? await firstBrokenOfObject(deps, records)
    : (firstBrokenEntry(records) ??
      (head && records[records.length - 1]?.digest !== head.digest ? head._id : null));
  const certificate = {
    version: CERTIFICATE_VERSION,
    issued_at: new Date().toISOString(),
    object_id: objectId,
    chain: { head: head?.digest ?? null, count, valid: brokenAt === null, broken_at: brokenAt },
    // As stored (`_id` is the slot): a verifier recomputes each digest from exactly this.
    records,
  };
  const payload = Buffer.from(stringify(certificate) ?? '', 'utf8');
  return {
    algorithm: 'Ed25519' as const,
    payload: payload.toString('base64'),
    signature: deps.decisionSigner.signMessage(payload),
    public_key: { hex: deps.decisionSigner.publicKeyHex, pem: deps.decisionSigner.publicKeyPem },
    certificate,
    chain_head: certificate.chain.head,
    count,
    valid: certificate.chain.valid,
  };
}
