import { createRecordSeal, decodeKey, recordSealKey } from '../signing/record-seal';
import {
  createSealedRecords,
  type IntegrityFailure,
  type RecordVersions,
  type SealedRecords,
} from '../store/sealed-records';
import { createCheckpointIndex } from './external-actions/checkpoint-index';
import { createLedgerSeal, ledgerSealSeed } from './external-actions/ledger-seal';
import type { SecurityEvent } from './worker-trust';

/** The configuration a process's record seal comes from (never the database). */
export interface RecordSealConfig {
  recordSealKey?: string;
  recordSealPreviousKeys?: readonly string[];
  ledgerSealKey?: string;
  ledgerSealVerifyKeys?: readonly string[];
  keyPepper: string;
  /** Where the version checkpoints go (beside the ledger's); none: versions are not kept. */
  ledgerCheckpointDir?: string;
  mongodbDb?: string;
}

/**
 * The versions the service wrote of its sealed records, as signed lines in
 * `<LEDGER_CHECKPOINT_DIR>/<database>.records.jsonl`, outside the database: the ledger
 * checkpoint's format and signature, `action_id` naming `<collection>/<record id>` and `seq`
 * its version (`head` the record's seal). A record restored whole from an earlier copy has
 * a valid seal but a version behind a line here, and is refused. Every process reads the
 * file through an index that reads only what was appended (`checkpoint-index.ts`).
 */
export function recordVersionsOf(config: RecordSealConfig): RecordVersions | undefined {
  if (!config.ledgerCheckpointDir || !config.mongodbDb) return undefined;
  const database = `${config.mongodbDb}.records`;
  const writer = createLedgerSeal({
    seed: ledgerSealSeed(config),
    acceptedKeys: config.ledgerSealVerifyKeys,
    checkpointDir: config.ledgerCheckpointDir,
    database,
  });
  const index = createCheckpointIndex({
    dir: config.ledgerCheckpointDir,
    database,
    acceptedKeys: writer.acceptedKeys,
  });
  return {
    written: (collection, id, version, mac) =>
      writer.checkpoint({
        action_id: `${collection}/${id}`,
        from_seq: version,
        seq: version,
        head: mac,
      }),
    async newerThan(collection, id, version) {
      await index.refresh();
      const newer = index
        .claimsOf(`${collection}/${id}`)
        .filter((claim) => claim.seq > version)
        .sort((a, b) => b.seq - a.seq);
      // Only a signed claim refuses: a line anyone could append proves nothing.
      for (const claim of newer) if (await index.verified(claim)) return claim.seq;
      return null;
    },
  };
}

/** The security event of a record refused because its seal failed. */
export const integrityEvent = (failure: IntegrityFailure): SecurityEvent => ({
  kind: 'security.record_integrity',
  message: `${failure.collection} record ${failure.record_id} failed its integrity check: ${failure.problem}`,
  dedup_key: `${failure.collection}:${failure.record_id}:${failure.problem}`,
  detail: { ...failure },
});

/**
 * The sealed records of one process (api or worker), keyed from its configuration: the
 * record seal key, else one derived from the ledger seal seed. Each refused record is
 * reported through `report` (a security event: a metric, a service event, a `warn` line);
 * a failure to report is no reason to fail the read that refused it.
 */
export function sealedRecordsOf(
  config: RecordSealConfig,
  report: (event: SecurityEvent) => Promise<void> | void,
): SealedRecords {
  const key = recordSealKey(config, ledgerSealSeed(config));
  const previous = (config.recordSealPreviousKeys ?? []).map(decodeKey);
  return createSealedRecords(
    createRecordSeal(key, previous),
    (failure) => {
      void Promise.resolve()
        .then(() => report(integrityEvent(failure)))
        .catch(() => undefined);
    },
    recordVersionsOf(config),
  );
}
