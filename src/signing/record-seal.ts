import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import stringify from 'safe-stable-stringify';

/**
 * Seals of the records that grant or limit authority (API keys, principals, organizations,
 * approver keys, approval rules, action end markers): an HMAC-SHA-256 over the record's
 * collection, id and authority fields, with a key from configuration that the database never
 * holds (docs/approvals.md, "Threat model"). Whoever can write the database can change a
 * field, but not make the seal that goes with it, so a re-pointed key, a made-up approver key
 * or a weakened rule is refused where it is used.
 *
 * A MAC, not a signature: only the api and the workers verify these seals (the proof runner
 * is a worker), all of which hold the ledger seal key anyway, and a MAC costs about a
 * microsecond where the request path reads a record.
 */

export const RECORD_SEAL_VERSION = 'governed-runtime/record-seal/v1';

/** What a sealed record carries: which key sealed it, and the MAC. */
export interface RecordSealStamp {
  /** The first 16 hex of the sha256 of the MAC key: which accepted key to check with. */
  key_id: string;
  /** HMAC-SHA-256 over `sealedBytes(collection, id, fields)`, hex. */
  mac: string;
}

export interface RecordSeal {
  /** The sealing key's id. */
  keyId: string;
  /** The stamp of a record's authority `fields` (undefined values count as absent). */
  stamp(collection: string, id: string, fields: Record<string, unknown>): RecordSealStamp;
  /** Why `stamp` does not hold for these fields, or null when it does. */
  problem(
    collection: string,
    id: string,
    fields: Record<string, unknown>,
    stamp: unknown,
  ): string | null;
  /** Whether the stamp is by an accepted key other than the current one (to re-seal). */
  byPreviousKey(stamp: unknown): boolean;
}

/** The MACed bytes: `[version, collection, id, fields]` as canonical JSON. */
export const sealedBytes = (
  collection: string,
  id: string,
  fields: Record<string, unknown>,
): string => stringify([RECORD_SEAL_VERSION, collection, id, fields]) ?? '';

/**
 * The record seal key: `RECORD_SEAL_KEY` when set, else derived from the ledger seal seed
 * with HKDF under its own label (so it is never the ledger's signing seed itself).
 */
export function recordSealKey(config: { recordSealKey?: string }, ledgerSeed: Buffer): Buffer {
  if (config.recordSealKey) return decodeKey(config.recordSealKey);
  return Buffer.from(hkdfSync('sha256', ledgerSeed, 'governed-runtime', 'record-seal/v1', 32));
}

/** A 32-byte key given as 64 hex digits or base64. */
export function decodeKey(text: string): Buffer {
  return Buffer.from(text, /^[0-9a-f]{64}$/.test(text) ? 'hex' : 'base64');
}

const keyIdOf = (key: Buffer): string =>
  createHash('sha256').update(key).digest('hex').slice(0, 16);

/**
 * A process's record seal: stamps with `key`, and accepts stamps by `key` or any of
 * `previousKeys` (a rotation: the operator's `seal-records` command re-seals what an old key
 * sealed).
 */
export function createRecordSeal(key: Buffer, previousKeys: readonly Buffer[] = []): RecordSeal {
  if (key.length !== 32) throw new Error('the record seal key must be 32 bytes');
  const keys = new Map<string, Buffer>([[keyIdOf(key), key]]);
  for (const previous of previousKeys) keys.set(keyIdOf(previous), previous);
  const keyId = keyIdOf(key);
  const mac = (with_: Buffer, collection: string, id: string, fields: Record<string, unknown>) =>
    createHmac('sha256', with_)
      .update(sealedBytes(collection, id, fields))
      .digest();
  return {
    keyId,
    stamp: (collection, id, fields) => ({
      key_id: keyId,
      mac: mac(key, collection, id, fields).toString('hex'),
    }),
    problem(collection, id, fields, stamp) {
      if (stamp === undefined || stamp === null) return 'it is not sealed';
      const { key_id: stampKey, mac: stampMac } = stamp as Partial<RecordSealStamp>;
      if (
        typeof stampKey !== 'string' ||
        typeof stampMac !== 'string' ||
        !/^[0-9a-f]{64}$/.test(stampMac)
      ) {
        return 'its seal is malformed';
      }
      const sealingKey = keys.get(stampKey);
      if (!sealingKey) return `its seal is by key ${stampKey}, which this service does not accept`;
      const expected = mac(sealingKey, collection, id, fields);
      return timingSafeEqual(expected, Buffer.from(stampMac, 'hex'))
        ? null
        : 'its seal does not match its fields';
    },
    byPreviousKey: (stamp) => {
      const stampKey = (stamp as Partial<RecordSealStamp> | null | undefined)?.key_id;
      return typeof stampKey === 'string' && stampKey !== keyId && keys.has(stampKey);
    },
  };
}
