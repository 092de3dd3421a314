import { randomBytes } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from 'mongodb';
import { canonicalDigest } from '../lib/canonical-digest';
import type { ActionLedgerEntry } from '../store/external-actions.repo';
import type { SealedCollection, SealedRecords } from '../store/sealed-records';
import { ledgerDigestHolds, type LedgerSealer } from './external-actions/ledger-seal';
import type { AuditSealer } from './governance/audit-seal';
import { SEALED_RECORD_COLLECTIONS } from './proofs/authority-records-check';

/**
 * The operator's one-off sealing (`npm run seal-records`, docs/proofs.md): records and
 * ledger entries written before sealing existed carry no seal, and after this nothing
 * unsealed is trusted, whatever its dates say. It seals what is consistent and refuses,
 * without sealing, what is not (a record sealed by a key nobody accepts, whose seal does
 * not match its fields, an end that names an entry the ledger does not hold, an entry whose
 * digest or link does not hold): those are for an operator to restore. Every run appends a
 * manifest, signed with the ledger seal key, outside the database: what it sealed, by id.
 *
 * Run it with the service stopped (or before the first start of a version that seals): a
 * record written while it runs is sealed by its writer anyway.
 */
export interface SealReport {
  db: string;
  at: string;
  /** The record seal key's id, and the ledger seal key's public key. */
  record_key_id: string;
  ledger_key_id: string;
  /** Ids sealed (or re-sealed from a previous key), per collection. */
  sealed: Record<string, string[]>;
  /** What was not sealed, and why. */
  refused: { collection: string; record_id: string; problem: string }[];
}

interface Deps {
  db: Db;
  database: string;
  sealed: SealedRecords;
  ledgerSeal: LedgerSealer;
  /** Chains the audit rows written before chaining existed. */
  auditSeal: Pick<AuditSealer, 'seal' | 'checkpoint'>;
  /** Where the manifest goes: the ledger checkpoint directory. */
  manifestDir: string;
}

type Stored = { _id: string; seal?: unknown; version?: number } & Record<string, unknown>;

/** Seals every unsealed record and ledger entry that holds; appends the signed manifest. */
export async function sealExistingRecords(deps: Deps): Promise<SealReport> {
  const report: SealReport = {
    db: deps.database,
    at: new Date().toISOString(),
    record_key_id: deps.sealed.keyId,
    ledger_key_id: deps.ledgerSeal.keyId,
    sealed: {},
    refused: [],
  };
  const sealedIds = (collection: string) => (report.sealed[collection] ??= []);
  for (const collection of [...SEALED_RECORD_COLLECTIONS, 'action_ends'] as const) {
    const col = deps.db.collection<Stored>(collection);
    for await (const record of col.find({})) {
      const outcome = await sealOne(deps, collection, record);
      if (typeof outcome === 'string') {
        report.refused.push({ collection, record_id: record._id, problem: outcome });
      } else if (outcome) sealedIds(collection).push(record._id);
    }
  }
  await sealLedger(deps, report, sealedIds('action_ledger'));
  await chainLegacyAudit(deps, sealedIds('audit'));
  const signature = deps.ledgerSeal.signManifest(report);
  await mkdir(deps.manifestDir, { recursive: true });
  await appendFile(
    join(deps.manifestDir, `${deps.database}.seal-manifest.jsonl`),
    `${JSON.stringify({ ...report, signature })}\n`,
  );
  return report;
}

/** Seals one record when it needs it: `{sealed}`, null (nothing to do), or why not. */
async function sealOne(
  deps: Deps,
  collection: SealedCollection,
  record: Stored,
): Promise<{ sealed: true } | string | null> {
  const col = deps.db.collection<Stored>(collection);
  if (record.seal !== undefined) {
    const problem = deps.sealed.problemOf(collection, record);
    if (problem) return problem;
    if (!deps.sealed.byPreviousKey(record)) return null;
    // Sealed by an accepted earlier key: sealed again under the current one.
    await col.updateOne(
      { _id: record._id },
      { $set: { seal: deps.sealed.stampOf(collection, record) } },
    );
    return { sealed: true };
  }
  if (collection === 'action_ends') {
    const entry = await deps.db
      .collection<ActionLedgerEntry>('action_ledger')
      .findOne({ _id: `${record._id}:${String(record['seq'])}` });
    if (!entry || entry.digest !== record['digest'] || entry.status !== record['status']) {
      return `it names ledger entry ${String(record['seq'])}, which the ledger does not hold as named`;
    }
  }
  const version = collection === 'action_ends' ? {} : { version: record.version ?? 1 };
  const stamp = deps.sealed.stampOf(collection, { ...record, ...version });
  await col.updateOne({ _id: record._id }, { $set: { ...version, seal: stamp } });
  return { sealed: true };
}

/**
 * Seals each unsealed ledger entry whose digest recomputes and whose chain links, action by
 * action, and checkpoints each action it sealed up to its newest entry.
 */
async function sealLedger(deps: Deps, report: SealReport, sealedIds: string[]): Promise<void> {
  const ledger = deps.db.collection<ActionLedgerEntry>('action_ledger');
  const actions = new Set<string>();
  for await (const entry of ledger.find({}, { projection: { _id: 1, seal: 1 } })) {
    if (entry.seal === undefined) actions.add(entry._id.slice(0, entry._id.lastIndexOf(':')));
  }
  for (const actionId of actions) {
    let prev: string | null = null;
    let firstSealed: number | null = null;
    let newest: ActionLedgerEntry | null = null;
    for (let seq = 1; ; seq += 1) {
      const entry = await ledger.findOne({ _id: `${actionId}:${seq}` });
      if (!entry) break;
      const problem = !ledgerDigestHolds(entry)
        ? `its digest does not recompute (${canonicalDigest(entry).slice(0, 19)}…)`
        : entry.prev_digest !== prev
          ? `its prev_digest is not the digest of seq ${seq - 1}`
          : null;
      if (problem) {
        report.refused.push({ collection: 'action_ledger', record_id: entry._id, problem });
        break; // nothing after a broken link is sealed: the chain from here is not the service's
      }
      if (entry.seal === undefined) {
        await ledger.updateOne(
          { _id: entry._id },
          { $set: { seal: deps.ledgerSeal.seal(entry._id, entry.digest) } },
        );
        sealedIds.push(entry._id);
        firstSealed ??= seq;
      }
      prev = entry.digest;
      newest = entry;
    }
    if (firstSealed !== null && newest) {
      await deps.ledgerSeal.checkpoint({
        action_id: actionId,
        from_seq: firstSealed,
        seq: newest.seq,
        head: newest.digest,
      });
    }
  }
}

/**
 * Chains the audit rows that are in no chain (written before chaining existed) into one
 * chain of their own, oldest first, each sealed and checkpointed as the api's writer does
 * (`store/audit-chain.ts`); their ids stay.
 */
async function chainLegacyAudit(deps: Deps, sealedIds: string[]): Promise<void> {
  const audit = deps.db.collection<Stored & { at: string }>('audit');
  const legacy = await audit
    .find({ chain_id: { $exists: false } })
    .sort({ at: 1, _id: 1 })
    .toArray();
  const chainId = `legacy-${randomBytes(6).toString('hex')}`;
  let head: string | null = null;
  for (const [index, row] of legacy.entries()) {
    const { seal: _seal, digest: _digest, ...content } = row;
    const body = { ...content, chain_id: chainId, seq: index + 1, prev_digest: head };
    const digest = canonicalDigest(body);
    const seal = deps.auditSeal.seal(row._id, digest);
    await audit.updateOne(
      { _id: row._id },
      { $set: { chain_id: chainId, seq: index + 1, prev_digest: head, digest, seal } },
    );
    await deps.auditSeal.checkpoint({
      chain_id: chainId,
      seq: index + 1,
      audit_id: row._id,
      head: digest,
      at: row.at,
    });
    sealedIds.push(row._id);
    head = digest;
  }
}
