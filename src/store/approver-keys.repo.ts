import type { Db, Filter } from 'mongodb';
import { insertOnce } from './mongo';
import { newestByIdPage } from './paging';
import { nextVersion, type SealedRecords } from './sealed-records';
import type { RecordSealStamp } from '../signing/record-seal';

/**
 * A public key a principal registered to sign their own decisions (docs/approvals.md,
 * "Approver keys"): an Ed25519 key (`ed25519`, the raw key as hex) or a passkey (`passkey`,
 * its COSE public key as base64url, with its credential id and signature counter). Never
 * deleted: a revoked key stays, so old approvals can still be judged.
 */
export interface ApproverKey {
  /** `apk_<ULID>`. */
  _id: string;
  principal_id: string;
  name: string;
  kind: 'ed25519' | 'passkey';
  public_key: string;
  /** Ed25519: `SHA256:…` as `ssh-keygen -lf` shows it; passkey: its credential id. */
  fingerprint: string;
  credential_id?: string;
  counter?: number;
  transports?: string[];
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
  /** When a decision it signed was last taken by the api (absent: never). */
  last_used_at?: string | null;
  /** One more at every write through the service but a use (sealed with the rest). */
  version?: number;
  /** The record seal over whose key it is and its standing (`sealed-records.ts`). */
  seal?: RecordSealStamp;
}

/**
 * A server-issued nonce: for a decision (what the approver signs binds it) or for a passkey
 * registration (the WebAuthn challenge). Used once: `consume` is a unique insert into
 * `approver_challenge_uses`, the one write FerretDB makes exclusive.
 */
export interface ApproverChallengeRecord {
  /** `ach_<ULID>`: the nonce itself. */
  _id: string;
  purpose: 'decision' | 'passkey_registration';
  principal_id: string;
  issued_at: string;
  expires_at: string;
  action_id?: string;
  decision?: 'approve' | 'reject';
  plan_digest?: string;
  rule_id?: string | null;
  rule_version?: number | null;
  /** For a passkey registration: the WebAuthn challenge sent to the browser. */
  webauthn_challenge?: string;
}

export function createApproverKeysRepo(db: Db, sealed: SealedRecords) {
  const keys = db.collection<ApproverKey>('approver_keys');
  const challenges = db.collection<ApproverChallengeRecord>('approver_challenges');
  const uses = db.collection<{ _id: string; at: string }>('approver_challenge_uses');
  /** The keys whose seal holds and that are current; a failure is reported and left out. */
  const holding = async (found: (ApproverKey | null)[]): Promise<ApproverKey[]> => {
    const judged = await Promise.all(
      found.map(async (key) => {
        if (!key) return null;
        const problem = await sealed.currentProblem('approver_keys', key);
        if (problem === null) return key;
        sealed.report({ collection: 'approver_keys', record_id: key._id, problem });
        return null;
      }),
    );
    return judged.filter((key): key is ApproverKey => key !== null);
  };
  return {
    async insert(key: ApproverKey): Promise<ApproverKey> {
      const stored = sealed.sealed('approver_keys', { ...key, version: key.version ?? 1 });
      await keys.insertOne(stored);
      await sealed.written('approver_keys', stored);
      return stored;
    },
    /** The key by id; one whose seal fails is refused (`RecordIntegrityError`). */
    findById: async (id: string) =>
      sealed.checked('approver_keys', await keys.findOne({ _id: id })),
    /**
     * Keys by id, one read each (FerretDB pushes down only `_id` equality). A key whose
     * seal fails is left out (and reported): to a signature check it is not registered.
     */
    async findByIds(ids: readonly string[]): Promise<Map<string, ApproverKey>> {
      const found = await Promise.all([...new Set(ids)].map((id) => keys.findOne({ _id: id })));
      return new Map((await holding(found)).map((k) => [k._id, k]));
    },
    /**
     * A principal's keys, newest first (a principal has a handful); a key whose seal fails
     * is left out (and reported), so a key inserted in their name is never theirs.
     */
    ofPrincipal: async (principalId: string) =>
      holding(await keys.find({ principal_id: principalId }).sort({ _id: -1 }).toArray()),
    list(
      filter: { principal_id?: string; status?: ApproverKey['status']; kind?: ApproverKey['kind'] },
      limit: number,
      beforeId?: string,
    ) {
      const query: Filter<ApproverKey> = {};
      if (filter.principal_id) query.principal_id = filter.principal_id;
      if (filter.status) query.status = filter.status;
      if (filter.kind) query.kind = filter.kind;
      return newestByIdPage(keys, query, limit, beforeId);
    },
    /** Revokes a key the caller read (and so checked); re-sealed as revoked. */
    async revoke(key: ApproverKey, by: string, at: string): Promise<void> {
      const changes = { status: 'revoked' as const, revoked_at: at, revoked_by: by };
      const version = nextVersion(key);
      const seal = sealed.stampOf('approver_keys', { ...key, ...changes, version });
      await keys.updateOne({ _id: key._id }, { $set: { ...changes, version, seal } });
      await sealed.written('approver_keys', { _id: key._id, version, seal });
    },
    /** A signature by this key was taken: when, and a passkey's new signature counter. */
    async markUsed(id: string, at: string, counter?: number): Promise<void> {
      await keys.updateOne(
        { _id: id },
        { $set: { last_used_at: at, ...(counter === undefined ? {} : { counter }) } },
      );
    },
    async issueChallenge(record: ApproverChallengeRecord): Promise<ApproverChallengeRecord> {
      await challenges.insertOne(record);
      return record;
    },
    findChallenge: (nonce: string) => challenges.findOne({ _id: nonce }),
    /** True for the first use of a nonce, false for any later one (a reuse). */
    consumeChallenge: (nonce: string, at: string): Promise<boolean> =>
      insertOnce(uses, { _id: nonce, at }),
  };
}

export type ApproverKeysRepo = ReturnType<typeof createApproverKeysRepo>;
