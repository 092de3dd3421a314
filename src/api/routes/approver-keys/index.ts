import * as keysService from '../../../domain/approver-keys/approver-keys.service';
import * as keySchemas from '../../../domain/approver-keys/schemas';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope, fromQuery, page } from '../common';

/**
 * Approver keys (docs/approvals.md, "Decisions signed by the approver"): the public keys a
 * principal signs their own decisions with, a passkey or an Ed25519 key. Called "approver
 * keys" here to keep them apart from API keys. The principal registers, lists and revokes
 * their own (`/v1/principals/me/keys…`, any key that may decide on actions); operators list
 * and revoke anyone's, never register one in another's name.
 */
const MINE = '/v1/principals/me/keys';

export const approverKeyRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'approverKeys.listMine',
    method: 'GET',
    path: MINE,
    family: 'external_action_execution',
    summary: "list the caller's approver keys",
    description:
      "The calling principal's approver keys (passkeys and Ed25519 keys), revoked ones included, newest first.",
    responses: {
      200: { description: "The caller's keys.", schema: envelope(keySchemas.approverKeyListView) },
    },
    handler: async (req, deps) => ({
      payload: await keysService.listMyApproverKeys(deps, req.auth),
    }),
  }),
  defineRoute({
    operationId: 'approverKeys.register',
    method: 'POST',
    path: `${MINE}/register`,
    family: 'external_action_execution',
    summary: 'register an Ed25519 approver key',
    description:
      "Registers an Ed25519 public key (e.g. `~/.ssh/id_ed25519.pub`) that signs the caller's approvals and rejections. Audited (`approver_key.register`). A key registered already is 409; more than 10 active keys is 409 `invalid_state`; a key that is not Ed25519 is 422.",
    request: {
      body: { name: 'RegisterApproverKeyRequest', schema: keySchemas.registerEd25519Body },
    },
    responses: {
      409: { description: 'The key is registered already, or the caller has 10 active keys.' },
      201: { description: 'The registered key.', schema: envelope(keySchemas.approverKeyView) },
    },
    idempotent: true,
    handler: async (req, deps) => ({
      status: 201,
      payload: await keysService.registerEd25519Key(deps, req.auth, req.requestId, req.body),
    }),
  }),
  defineRoute({
    operationId: 'approverKeys.passkeyOptions',
    method: 'POST',
    path: `${MINE}/passkey/options`,
    family: 'external_action_execution',
    summary: 'begin registering a passkey',
    description:
      'Options for `navigator.credentials.create` (user verification required) and a single-use nonce, valid five minutes, to send back with the credential.',
    responses: {
      409: { description: 'The caller has 10 active keys.' },
      200: {
        description: 'The creation options.',
        schema: envelope(keySchemas.passkeyOptionsView),
      },
    },
    handler: async (req, deps) => ({
      payload: await keysService.passkeyRegistrationOptions(deps, req.auth),
    }),
  }),
  defineRoute({
    operationId: 'approverKeys.registerPasskey',
    method: 'POST',
    path: `${MINE}/passkey/register`,
    family: 'external_action_execution',
    summary: 'register a passkey',
    description:
      'Verifies the attestation of a new passkey against the nonce from `…/passkey/options` (origin, relying party, user verification) and registers it. Audited (`approver_key.register`). An expired, used or failing registration is 403.',
    request: {
      body: { name: 'RegisterPasskeyRequest', schema: keySchemas.registerPasskeyBody },
    },
    responses: {
      409: {
        description: 'The credential is registered already, or the caller has 10 active keys.',
      },
      201: { description: 'The registered passkey.', schema: envelope(keySchemas.approverKeyView) },
    },
    idempotent: true,
    handler: async (req, deps) => ({
      status: 201,
      payload: await keysService.registerPasskey(deps, req.auth, req.requestId, req.body),
    }),
  }),
  defineRoute({
    operationId: 'approverKeys.revoke',
    method: 'POST',
    path: `${MINE}/revoke`,
    family: 'external_action_execution',
    summary: 'revoke one of my approver keys',
    description:
      "Revokes one of the caller's approver keys: it signs nothing from now on, and an approval it signed that has not taken effect yet no longer counts (the worker checks keys again before the effect). Audited (`approver_key.revoke`). A key revoked already is 409.",
    request: {
      body: { name: 'RevokeApproverKeyRequest', schema: keySchemas.revokeApproverKeyBody },
    },
    responses: {
      409: { description: 'The key is revoked already.' },
      200: { description: 'The revoked key.', schema: envelope(keySchemas.approverKeyView) },
    },
    handler: async (req, deps) => ({
      payload: await keysService.revokeMyApproverKey(deps, req.auth, req.requestId, req.body),
    }),
  }),
  defineRoute({
    operationId: 'admin.approverKeys.list',
    method: 'GET',
    path: '/v1/admin/approver-keys',
    family: 'admin_control_plane',
    summary: 'list approver keys',
    description:
      'Every principal’s approver keys, newest first, optionally by principal, status or kind.',
    request: { query: keySchemas.approverKeyListQuery },
    responses: {
      200: {
        description: 'A page of approver keys.',
        schema: page(keySchemas.approverKeyView, keySchemas.approverKeyListQuery),
      },
    },
    handler: fromQuery(keysService.listApproverKeys),
  }),
  defineRoute({
    operationId: 'admin.approverKeys.revoke',
    method: 'POST',
    path: '/v1/admin/approver-keys/revoke',
    family: 'admin_control_plane',
    summary: 'revoke an approver key',
    description:
      "Revokes any principal's approver key (a lost device, a leaver). Operators cannot register a key in another's name. Audited (`approver_key.revoke`). An unknown key is 404, one revoked already 409.",
    request: {
      body: { name: 'AdminRevokeApproverKeyRequest', schema: keySchemas.revokeApproverKeyBody },
    },
    responses: {
      404: { description: 'No such approver key.' },
      409: { description: 'The key is revoked already.' },
      200: { description: 'The revoked key.', schema: envelope(keySchemas.approverKeyView) },
    },
    handler: async (req, deps) => ({
      payload: await keysService.revokeApproverKey(deps, req.auth, req.requestId, req.body),
    }),
  }),
];
