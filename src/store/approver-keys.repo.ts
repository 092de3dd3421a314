import type { Db, Filter } from 'mongodb';
import { insertOnce } from './mongo';
import { newestByIdPage } from './paging';

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

export function createApproverKeysRepo(db: Db) {
  const keys = db.collection<ApproverKey>('approver_keys');
  const challenges = db.collection<ApproverChallengeRecord>('approver_challenges');
  const uses = db.collection<{ _id: string; at: string }>('approver_challenge_uses');
  return {
    async insert(key: ApproverKey): Promise<ApproverKey> {
      await keys.insertOne(key);
      return key;
    },
    findById: (id: string) => keys.findOne({ _id: id }),
    /** Keys by id, one read each (FerretDB pushes down only `_id` equality). */
    async findByIds(ids: readonly string[]): Promise<Map<string, ApproverKey>> {
      const found = await Promise.all([...new Set(ids)].map((id) => keys.findOne({ _id: id })));
      return new Map(found.filter((k): k is ApproverKey => k !== null).map((k) => [k._id, k]));
    },
    /** A principal's keys, newest first (a principal has a handful). */
    ofPrincipal: (principalId: string) =>
      keys.find({ principal_id: principalId }).sort({ _id: -1 }).toArray(),
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
    async revoke(id: string, by: string, at: string): Promise<void> {
      await keys.updateOne(
        { _id: id },
        { $set: { status: 'revoked', revoked_at: at, revoked_by: by } },
      );
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
