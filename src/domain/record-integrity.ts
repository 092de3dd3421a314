import { createRecordSeal, decodeKey, recordSealKey } from '../signing/record-seal';
import {
  createSealedRecords,
  type IntegrityFailure,
  type SealedRecords,
} from '../store/sealed-records';
import { ledgerSealSeed } from './external-actions/ledger-seal';
import type { SecurityEvent } from './worker-trust';

/** The configuration a process's record seal comes from (never the database). */
export interface RecordSealConfig {
  recordSealKey?: string;
  recordSealPreviousKeys?: readonly string[];
  ledgerSealKey?: string;
  keyPepper: string;
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
  return createSealedRecords(createRecordSeal(key, previous), (failure) => {
    void Promise.resolve()
      .then(() => report(integrityEvent(failure)))
      .catch(() => undefined);
  });
}
