/**
 * Approver keys and approver assertions (docs/approvals.md, "Decisions signed by the
 * approver"): request bodies and views. Request types are derived from the schemas.
 */
import type { Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { approverKeyId, b64url, challengeNonce } from '../external-actions/schemas';
import { principalId } from '../governance/schemas';
import { idCursor } from '../../lib/cursor';

export const APPROVER_KEY_KINDS = ['ed25519', 'passkey'] as const;
export const APPROVER_KEY_STATUSES = ['active', 'revoked'] as const;
/** A principal holds at most this many active keys (a few devices and a CLI key). */
export const MAX_ACTIVE_APPROVER_KEYS = 10;

/** Body of `POST /v1/principals/me/keys/register`: an Ed25519 public key. */
export const registerEd25519Body = schema.closedObject(
  {
    name: schema.text('What the key is, for people (e.g. "laptop CLI").', 128),
    public_key: schema.text(
      'The Ed25519 public key: an OpenSSH line (`ssh-ed25519 AAAA… comment`), a PEM `PUBLIC KEY`, or the 32 raw bytes as hex or base64.',
      2048,
    ),
  },
  ['name', 'public_key'],
);
export type RegisterEd25519Body = Static<typeof registerEd25519Body>;

/** Body of `POST /v1/principals/me/keys/passkey/register`: the browser's attestation. */
export const registerPasskeyBody = schema.closedObject(
  {
    name: schema.text('What the passkey is, for people (e.g. "work laptop").', 128),
    nonce: challengeNonce('The registration challenge from `…/passkey/options`.'),
    credential: schema.closedObject(
      {
        id: b64url('Credential id (base64url).', 1024),
        raw_id: b64url('Raw credential id (base64url).', 1024),
        client_data_json: b64url('`response.clientDataJSON` (base64url).'),
        attestation_object: b64url('`response.attestationObject` (base64url).', 16384),
        transports: schema.arrayOf(
          schema.text('A transport (`internal`, `usb`, `hybrid`, …).', 32),
          '`response.getTransports()`.',
          { maxItems: 8 },
        ),
      },
      ['id', 'raw_id', 'client_data_json', 'attestation_object'],
      'The `PublicKeyCredential` from `navigator.credentials.create`, binary fields base64url.',
    ),
  },
  ['name', 'nonce', 'credential'],
);
export type RegisterPasskeyBody = Static<typeof registerPasskeyBody>;

/** Body of the revoke routes. */
export const revokeApproverKeyBody = schema.closedObject(
  { key_id: approverKeyId('The approver key to revoke.') },
  ['key_id'],
);
export type RevokeApproverKeyBody = Static<typeof revokeApproverKeyBody>;

/** Query of `GET /v1/admin/approver-keys`. */
export const approverKeyListQuery = schema.pagedQuery(idCursor('apk').schema, {
  principal_id: principalId('Only keys of this principal.'),
  status: schema.choice(APPROVER_KEY_STATUSES, 'Only keys in this status.'),
  kind: schema.choice(APPROVER_KEY_KINDS, 'Only keys of this kind.'),
});
export type ApproverKeyListQuery = Static<typeof approverKeyListQuery>;

/** Body of `POST /v1/external-actions/{action_id}/challenge`. */
export const challengeBody = schema.closedObject(
  {
    decision: schema.choice(['approve', 'reject'] as const, 'The decision to be signed.'),
    plan_digest: schema.patterned(
      'The plan the decision names (default: the action’s dry run).',
      '^sha256:[0-9a-f]{64}$',
      71,
    ),
  },
  ['decision'],
);
export type ChallengeBody = Static<typeof challengeBody>;

export const approverKeyView = schema.view(
  {
    key_id: approverKeyId('Approver key id.'),
    principal_id: schema.text('Whose key.', 64),
    name: schema.text('Name given at registration.', 128),
    kind: schema.choice(APPROVER_KEY_KINDS, '`ed25519` or `passkey`.'),
    public_key: schema.text('Ed25519: raw key, hex; passkey: COSE key, base64url.', 4096),
    fingerprint: schema.text(
      'Ed25519: `SHA256:…` (as `ssh-keygen -lf`); passkey: credential id.',
      1024,
    ),
    status: schema.choice(APPROVER_KEY_STATUSES, 'Only active keys sign decisions.'),
    created_at: schema.dateTime('When registered.'),
    revoked_at: schema.nullable(schema.dateTime('When revoked.')),
    revoked_by: schema.nullable(schema.text('Principal that revoked it.', 64)),
    last_used_at: schema.nullable(
      schema.dateTime('When the api last took a decision this key signed (null: never).'),
    ),
  },
  [
    'key_id',
    'principal_id',
    'name',
    'kind',
    'public_key',
    'fingerprint',
    'status',
    'created_at',
    'revoked_at',
    'revoked_by',
    'last_used_at',
  ],
  'A public key that signs its principal’s decisions.',
);

export const approverKeyListView = schema.view(
  { items: schema.arrayOf(approverKeyView, 'The keys, newest first.', { maxItems: 500 }) },
  ['items'],
);

export const passkeyOptionsView = schema.view(
  {
    nonce: challengeNonce('Send it back with the credential.'),
    expires_at: schema.dateTime('Register before this.'),
    options: schema.freeObject(
      '`PublicKeyCredentialCreationOptionsJSON` for `navigator.credentials.create` (binary fields base64url; user verification required).',
    ),
  },
  ['nonce', 'expires_at', 'options'],
);

export const challengeView = schema.view(
  {
    nonce: challengeNonce('Single use.'),
    expires_at: schema.dateTime('The assertion must reach the api before this.'),
    action_id: schema.text('Action.', 64),
    decision: schema.choice(['approve', 'reject'] as const, 'Decision.'),
    plan_digest: schema.text('Plan named.', 71),
    rule_id: schema.nullable(schema.text('Rule in force.', 64)),
    rule_version: schema.nullable(schema.integer('Its version.', 1, 1_000_000)),
    principal_id: schema.text('The approver.', 64),
    message: schema.text(
      'The exact bytes to sign, as UTF-8 text (an Ed25519 key signs these bytes).',
      4096,
    ),
    message_base64: schema.text('The same bytes, base64.', 8192),
    webauthn_challenge: schema.text(
      'The WebAuthn `challenge` for a passkey: SHA-256 of the bytes, base64url.',
      64,
    ),
    allow_credentials: schema.arrayOf(
      schema.view(
        { id: schema.text('Credential id.', 1024), type: schema.text('`public-key`.', 16) },
        ['id', 'type'],
      ),
      "The caller's active passkeys (`allowCredentials`).",
      { maxItems: 20 },
    ),
    rp_id: schema.text('The relying party id passkeys are bound to.', 253),
  },
  [
    'nonce',
    'expires_at',
    'action_id',
    'decision',
    'plan_digest',
    'rule_id',
    'rule_version',
    'principal_id',
    'message',
    'message_base64',
    'webauthn_challenge',
    'allow_credentials',
    'rp_id',
  ],
  'What the approver signs to decide, and how.',
);
