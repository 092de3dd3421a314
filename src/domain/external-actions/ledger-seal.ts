import {
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import stringify from 'safe-stable-stringify';
import { canonicalDigest } from '../../lib/canonical-digest';
import { appendCheckpoint, readCheckpoints, type LedgerCheckpoint } from './ledger-checkpoints';

/**
 * Seals of the action ledger (docs/actions.md, "What the ledger protects against whom").
 *
 * An entry's digest is computable by anyone who can read it, so a database holder can edit
 * an entry and recompute every digest after it. Each entry therefore also carries a seal:
 * an Ed25519 signature over its id and digest by the service's ledger key (`LEDGER_SEAL_KEY`,
 * configuration, never the database). The seal is not covered by the digest, so the digests
 * of entries written before sealing existed are unchanged. A seal alone does not show
 * that entries were removed from the end of a chain, so every recorded batch also appends a
 * signed checkpoint (action, seq, head) to a file outside the database
 * (`ledger-checkpoints.ts`).
 */

export const LEDGER_SEAL_VERSION = 'governed-runtime/ledger-seal/v1';
export const LEDGER_CHECKPOINT_VERSION = 'governed-runtime/ledger-checkpoint/v1';
export const SEAL_MANIFEST_VERSION = 'governed-runtime/seal-manifest/v1';

/** The signed bytes of a seal manifest: its canonical JSON under the manifest's label. */
export const manifestMessage = (manifest: object): Buffer =>
  Buffer.from(stringify([SEAL_MANIFEST_VERSION, manifest]) ?? '');

/** What an entry carries beside its digest: who sealed it, and the signature. */
export interface EntrySeal {
  /** The sealing key's raw Ed25519 public key, hex: which accepted key to check against. */
  key_id: string;
  /** Ed25519 over `sealMessage(entry id, digest)`, hex. */
  signature: string;
}

/** The sealed bytes: `["governed-runtime/ledger-seal/v1", <entry id>, <digest>]` as JSON. */
export const sealMessage = (entryId: string, digest: string): Buffer =>
  Buffer.from(JSON.stringify([LEDGER_SEAL_VERSION, entryId, digest]));

/** The signed bytes of a checkpoint: its fields in a fixed order, as a JSON array. */
export const checkpointMessage = (
  checkpoint: Omit<LedgerCheckpoint, 'key_id' | 'signature'>,
): Buffer =>
  Buffer.from(
    JSON.stringify([
      LEDGER_CHECKPOINT_VERSION,
      checkpoint.db,
      checkpoint.action_id,
      checkpoint.from_seq,
      checkpoint.seq,
      checkpoint.head,
      checkpoint.at,
    ]),
  );

/**
 * Whether an action ledger entry's digest recomputes: over every field but `digest` and
 * `seal` (the seal signs the digest, so it cannot be inside it).
 */
export function ledgerDigestHolds(entry: { digest: string; seal?: unknown }): boolean {
  const { digest, seal: _seal, ...body } = entry;
  return canonicalDigest(body) === digest;
}

/** What records write with: seals for entries, checkpoints for batches. */
export interface LedgerSealer {
  /** The sealing key's public key, hex. */
  keyId: string;
  seal(entryId: string, digest: string): EntrySeal;
  /**
   * Appends a signed checkpoint of one recorded batch (its first seq, its last seq and the
   * head after it) to the checkpoint file; throws when it cannot, so the record is retried.
   */
  checkpoint(batch: {
    action_id: string;
    from_seq: number;
    seq: number;
    head: string;
  }): Promise<void>;
  /** Signs an operator's seal manifest (`seal-records`): what it sealed, by which keys. */
  signManifest(manifest: object): EntrySeal;
}

/** What the proof checks verify with: the accepted keys and the checkpoints written. */
export interface LedgerSealVerifier {
  /** Public keys (hex) whose seals and checkpoints are accepted (`LEDGER_SEAL_VERIFY_KEYS`). */
  acceptedKeys: readonly string[];
  /** This database's checkpoints, in file order (a line that does not parse is skipped). */
  checkpoints(): Promise<LedgerCheckpoint[]>;
}

export type LedgerSeal = LedgerSealer & LedgerSealVerifier;

// PKCS#8 DER header of an Ed25519 private key, and SPKI of a public key; 32 bytes follow.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * The sealing seed: `LEDGER_SEAL_KEY` (32 bytes, hex or base64) when set, as production
 * should; otherwise derived from `KEY_PEPPER` with HKDF (its own label, so it is never the
 * decision key). Both are configuration: the database never holds them.
 */
export function ledgerSealSeed(config: { ledgerSealKey?: string; keyPepper: string }): Buffer {
  const key = config.ledgerSealKey;
  if (key) return Buffer.from(key, /^[0-9a-f]{64}$/.test(key) ? 'hex' : 'base64');
  return Buffer.from(
    hkdfSync('sha256', config.keyPepper, 'governed-runtime', 'ledger-seal/v1', 32),
  );
}

/**
 * Signs with the ledger seal key: its public key (hex, the `key_id` of what it signs) and
 * hex Ed25519 signatures. The action ledger and the admin audit (`audit-seal.ts`) both sign
 * with it, each over messages that start with their own version label.
 */
export function ledgerSigner(seed: Buffer): {
  keyId: string;
  signHex: (message: Buffer) => string;
} {
  if (seed.length !== 32) throw new Error('the ledger seal key must be 32 bytes');
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return {
    keyId: spki.subarray(spki.length - 32).toString('hex'),
    signHex: (message) => sign(null, message, privateKey).toString('hex'),
  };
}

/**
 * The ledger seal of one process: it signs with `seed`, accepts `acceptedKeys` (default: its
 * own public key) and writes and reads the checkpoints of database `database` in
 * `checkpointDir`.
 */
export function createLedgerSeal(options: {
  seed: Buffer;
  acceptedKeys?: readonly string[];
  checkpointDir: string;
  database: string;
}): LedgerSeal {
  const { keyId, signHex } = ledgerSigner(options.seed);
  const { checkpointDir, database } = options;
  return {
    keyId,
    acceptedKeys: options.acceptedKeys?.length ? [...options.acceptedKeys] : [keyId],
    seal: (entryId, digest) => ({
      key_id: keyId,
      signature: signHex(sealMessage(entryId, digest)),
    }),
    async checkpoint(batch) {
      const unsigned = { db: database, ...batch, at: new Date().toISOString() };
      await appendCheckpoint(checkpointDir, database, {
        ...unsigned,
        key_id: keyId,
        signature: signHex(checkpointMessage(unsigned)),
      });
    },
    checkpoints: () => readCheckpoints(checkpointDir, database),
    signManifest: (manifest) => ({
      key_id: keyId,
      signature: signHex(manifestMessage(manifest)),
    }),
  };
}

/** Why a seal manifest's signature does not hold against the accepted keys, or null. */
export const manifestProblem = (
  acceptedKeys: readonly string[],
  manifest: { signature?: Partial<EntrySeal> } & Record<string, unknown>,
): string | null => {
  const { signature, ...body } = manifest;
  return signatureProblem(
    acceptedKeys,
    signature?.key_id,
    signature?.signature,
    manifestMessage(body),
    'the manifest',
  );
};

const publicKeys = new Map<string, KeyObject>();

/** Ed25519 verification of a hex signature by a hex public key (node:crypto: fast). */
function verifies(keyId: string, message: Buffer, signature: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(keyId) || !/^[0-9a-f]{128}$/.test(signature)) return false;
  let key = publicKeys.get(keyId);
  if (!key) {
    key = createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(keyId, 'hex')]),
      format: 'der',
      type: 'spki',
    });
    if (publicKeys.size < 16) publicKeys.set(keyId, key);
  }
  try {
    return verify(null, message, key, Buffer.from(signature, 'hex'));
  } catch {
    return false;
  }
}

const short = (key: string) => `${key.slice(0, 16)}…`;

/**
 * Why a signature by `keyId` does not hold for `message` against the accepted keys, or null
 * when it does; `what` names the signed thing (`its seal`, `the checkpoint`).
 */
export function signatureProblem(
  acceptedKeys: readonly string[],
  keyId: unknown,
  signature: unknown,
  message: Buffer,
  what: string,
): string | null {
  if (typeof keyId !== 'string' || typeof signature !== 'string') {
    return `${what} is malformed`;
  }
  if (!acceptedKeys.includes(keyId)) {
    return `${what} is by key ${short(keyId)}, which this service does not accept`;
  }
  return verifies(keyId, message, signature)
    ? null
    : `${what} does not verify (key ${short(keyId)})`;
}

/**
 * Why an entry's seal does not hold (absent: null; the caller decides if it must be there).
 * The entry comes from the database, so its seal may be anything, `null` included.
 * `messageOf` builds the sealed bytes: the ledger's by default, the audit's for audit rows.
 */
export function sealProblem(
  acceptedKeys: readonly string[],
  entry: { _id: string; digest: string; seal?: Partial<EntrySeal> | null },
  messageOf: (entryId: string, digest: string) => Buffer = sealMessage,
): string | null {
  const { seal } = entry;
  if (seal === undefined) return null;
  if (seal === null || typeof seal !== 'object') return 'its seal is malformed';
  return signatureProblem(
    acceptedKeys,
    seal.key_id,
    seal.signature,
    messageOf(entry._id, entry.digest),
    'its seal',
  );
}

/** Why a checkpoint's signature does not hold, or null. */
export const checkpointProblem = (
  acceptedKeys: readonly string[],
  checkpoint: LedgerCheckpoint,
): string | null =>
  signatureProblem(
    acceptedKeys,
    checkpoint.key_id,
    checkpoint.signature,
    checkpointMessage(checkpoint),
    'the checkpoint',
  );
