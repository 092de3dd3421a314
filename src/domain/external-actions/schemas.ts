/**
 * The vocabulary of outbound actions and the schemas of their inputs (docs/actions.md);
 * request types are derived from the schemas, never written twice.
 */
import { Type, type Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';
import { eitherCursor, idCursor, inboxCursor, timeCursor } from '../../lib/cursor';

/** Kinds of outbound action a client may propose (docs/actions.md). */
export const PROPOSABLE_ACTION_KINDS = ['world.update_object', 'webhook.post', 'notify'] as const;
/** Every kind: `world.restore_object` is proposed only by a repair (docs/actions.md). */
export const ACTION_KINDS = [...PROPOSABLE_ACTION_KINDS, 'world.restore_object'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** Statuses of an outbound action (docs/actions.md). */
export const ACTION_STATUSES = [
  'proposed',
  'awaiting_approval',
  'dry_run_failed',
  'approved',
  'rejected',
  'expired',
  'executing',
  'executed',
  'failed',
  // Its workflow was ended from Temporal (terminated, cancelled, timed out or failed),
  // not by anything the api did: docs/actions.md "Temporal operator actions".
  'aborted',
] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];

/** Bounds of an action: defaults 86,400 s to expiry and one approval. */
export const ACTION_BOUNDS = {
  expiresInSeconds: { min: 60, max: 604_800, default: 86_400 },
  requiredApprovals: { min: 1, max: 5, default: 1 },
} as const;

/** A plan digest: sha256 hex, optionally prefixed `sha256:`. */
export const planDigest = (description: string) =>
  schema.patterned(description, '^(sha256:)?[0-9a-f]{64}$', 71);

/** Longest `parameters.message` of a `notify` action. */
export const MAX_NOTIFY_MESSAGE_LENGTH = 4000;
/** `parameters.channel` of a `notify` action. */
export const NOTIFY_CHANNEL_PATTERN = '^[a-z0-9_.-]{1,64}$';

/** `action_kind` is `kind`: the condition of a kind's own rules. */
const kindIs = (kind: string) => ({
  properties: { action_kind: { const: kind } },
  required: ['action_kind'],
});

/**
 * What each kind needs beyond the common shape, stated in the schema (the document shows it,
 * validation enforces it with these messages); `contract.ts` checks the same again.
 */
const ACTION_KIND_RULES = [
  schema.when(
    kindIs('world.update_object'),
    { properties: { target: { required: ['world_object_ref'] } } },
    'world.update_object needs target.world_object_ref',
  ),
  schema.when(
    kindIs('world.update_object'),
    {
      properties: {
        parameters: {
          required: ['patch'],
          properties: { patch: { type: 'object', minProperties: 1 } },
        },
      },
    },
    'world.update_object needs parameters.patch, an object of attribute values',
  ),
  schema.when(
    kindIs('webhook.post'),
    { properties: { target: { required: ['url'] } } },
    'webhook.post needs target.url',
  ),
  schema.when(
    kindIs('notify'),
    {
      properties: {
        parameters: {
          required: ['message'],
          properties: {
            message: { type: 'string', minLength: 1, maxLength: MAX_NOTIFY_MESSAGE_LENGTH },
          },
        },
      },
    },
    `notify needs parameters.message, a string of 1..${MAX_NOTIFY_MESSAGE_LENGTH} characters`,
  ),
  schema.when(
    kindIs('notify'),
    {
      properties: {
        parameters: {
          properties: { channel: { type: 'string', pattern: NOTIFY_CHANNEL_PATTERN } },
        },
      },
    },
    `parameters.channel must match ${NOTIFY_CHANNEL_PATTERN}`,
  ),
];

/** Body of `POST /v1/external-actions/propose` and `/dry-run`. */
const actionRequestFields = schema.closedObject(
  {
    action_kind: schema.choice(
      PROPOSABLE_ACTION_KINDS,
      '`world.update_object` patches attributes of a world object within `bounds.allowed_fields`; `webhook.post` POSTs a signed JSON body to an allow-listed URL; `notify` puts a message in the outbox.',
    ),
    target: schema.closedObject(
      {
        world_object_ref: schema.idRef('obj', 'World object to update (`world.update_object`).'),
        url: Type.String({
          format: 'uri',
          pattern: '^https?://',
          maxLength: 2048,
          description: 'URL to POST to (`webhook.post`); must be on the allow-list.',
        }),
      },
      [],
      'What the action acts on.',
    ),
    parameters: schema.storedObject(
      'Kind-specific parameters: the attribute patch, the webhook JSON body, or the message.',
    ),
    bounds: schema.closedObject(
      {
        allowed_fields: schema.arrayOf(
          schema.text('Attribute name.', 128),
          'Attributes `world.update_object` may touch; others make the dry run fail.',
          { maxItems: 100, uniqueItems: true },
        ),
        expires_in_seconds: schema.integer(
          'Seconds the action may wait for approval before it expires.',
          ACTION_BOUNDS.expiresInSeconds.min,
          ACTION_BOUNDS.expiresInSeconds.max,
          ACTION_BOUNDS.expiresInSeconds.default,
        ),
        required_approvals: schema.integer(
          'Approvals needed, from distinct principals other than the proposer.',
          ACTION_BOUNDS.requiredApprovals.min,
          ACTION_BOUNDS.requiredApprovals.max,
          ACTION_BOUNDS.requiredApprovals.default,
        ),
      },
      [],
      'Bounds of the contract.',
    ),
    shared_context_id: schema.contextRef('Shared context the action belongs to.'),
    reason: schema.text('Why the action is proposed (kept in the ledger).', 1024),
  },
  ['action_kind', 'target', 'parameters', 'bounds'],
);
export const actionRequestSchema = schema.withRules(actionRequestFields, ACTION_KIND_RULES);

export type ExternalActionRequest = Static<typeof actionRequestSchema>;

const BASE64URL = '^[A-Za-z0-9_-]+$';
/** A binary WebAuthn field, base64url. */
export const b64url = (description: string, maxLength = 4096) =>
  schema.patterned(description, BASE64URL, maxLength);
export const approverKeyId = (description: string) => schema.idRef('apk', description);
export const challengeNonce = (description: string) => schema.idRef('ach', description);

/** The approver's assertion a decision carries (`approver_assertion`). */
export const approverAssertionSchema = schema.closedObject(
  {
    key_id: approverKeyId('The approver key that signed.'),
    nonce: challengeNonce(
      'The challenge nonce (`POST /v1/external-actions/{action_id}/challenge`).',
    ),
    expires_at: schema.dateTime('The challenge expiry, as issued (part of the signed bytes).'),
    signature: schema.patterned(
      'Ed25519 signature over the challenge bytes: hex (128 digits) or base64.',
      '^([0-9a-fA-F]{128}|[A-Za-z0-9+/_-]{86}(==)?)$',
      128,
    ),
    webauthn: schema.closedObject(
      {
        credential_id: b64url('Credential id (base64url).', 1024),
        authenticator_data: b64url('`response.authenticatorData` (base64url).'),
        client_data_json: b64url('`response.clientDataJSON` (base64url).'),
        signature: b64url('`response.signature` (base64url).', 1024),
        user_handle: b64url('`response.userHandle` (base64url).', 1024),
      },
      ['credential_id', 'authenticator_data', 'client_data_json', 'signature'],
      'A passkey assertion from `navigator.credentials.get` whose challenge is the challenge given.',
    ),
  },
  ['key_id', 'nonce', 'expires_at'],
  "The approver's own signature over the decision's challenge: `signature` (Ed25519 key) or `webauthn` (passkey).",
);
export type ApproverAssertionInput = Static<typeof approverAssertionSchema>;

/** Body of `approve`, `reject` and `execute`; the decider is the calling key's principal. */
export const decisionBodySchema = schema.closedObject({
  reason: schema.text('Why (kept in the ledger).', 1024),
  plan_digest: planDigest(
    'Digest of the dry-run plan the decision is based on; 409 when the plan is no longer current.',
  ),
  approver_assertion: approverAssertionSchema,
});
export type ExternalActionDecisionRequest = Static<typeof decisionBodySchema>;

/** Query of `GET /v1/external-actions`: actions by their current status. */
export const actionListQuery = schema.pagedQuery(eitherCursor(idCursor('act'), inboxCursor), {
  status: schema.choice(ACTION_STATUSES, 'Only actions whose current status is this.'),
  action_kind: schema.choice(ACTION_KINDS, 'Only actions of this kind.'),
  shared_context_id: schema.contextRef('Only actions in this shared context.'),
  proposed_by: schema.idRef('prn', 'Only actions proposed by this principal.'),
  awaiting_me: schema.flag(
    'Only actions the calling principal may approve now: awaiting approval, not proposed or already approved by them, and eligible under the rule in force.',
  ),
});
export type ActionListQuery = Static<typeof actionListQuery>;

/** Query of `GET /v1/external-actions/history`. */
export const actionHistoryQuery = schema.pagedQuery(timeCursor.schema, {
  status: schema.choice(
    ACTION_STATUSES,
    'Only ledger entries recorded with this status (an entry per transition, so an action appears once for each entry in that status; `GET /v1/external-actions` lists actions by their current status).',
  ),
  action_kind: schema.choice(ACTION_KINDS, 'Only entries of actions of this kind.'),
  shared_context_id: schema.contextRef('Only entries of actions in this shared context.'),
  action_id: schema.idRef('act', 'Only the entries of this action.'),
});
export type ActionHistoryQuery = Static<typeof actionHistoryQuery>;

/** Most ids of one kind `GET /v1/external-actions/names` resolves at once (a page's worth). */
export const MAX_NAMED_IDS = 100;

/** `prn_a,prn_b`: up to `MAX_NAMED_IDS` ids of one prefix, comma-separated. */
const idList = (prefix: string, description: string) =>
  schema.patterned(
    description,
    `^${prefix}_[0-9A-Za-z]{10,40}(,${prefix}_[0-9A-Za-z]{10,40}){0,${MAX_NAMED_IDS - 1}}$`,
    MAX_NAMED_IDS * 45,
  );

/** Query of `GET /v1/external-actions/names`. */
export const actionNamesQuery = schema.filterQuery({
  principal_ids: idList(
    'prn',
    `Principal ids, comma-separated (up to ${MAX_NAMED_IDS}): proposers, approvers, deciders, a rule's approvers.`,
  ),
  object_ids: idList(
    'obj',
    `World object ids, comma-separated (up to ${MAX_NAMED_IDS}): the targets of actions.`,
  ),
});
export type ActionNamesQuery = Static<typeof actionNamesQuery>;
