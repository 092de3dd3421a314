import { generateRegistrationOptions, verifyRegistrationResponse } from '@simplewebauthn/server';
import type { AuthContext } from '../../auth/auth-context';
import { ed25519Fingerprint, parseEd25519PublicKey } from '../../signing/ed25519-public-key';
import { Conflict, Forbidden, found, invalidAt, InvalidState } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { ApproverKey } from '../../store/approver-keys.repo';
import { pageById } from '../../store/paging';
import { audit } from '../governance/audit';
import type { DomainInfra } from '../infra';
import {
  MAX_ACTIVE_APPROVER_KEYS,
  type ApproverKeyListQuery,
  type RegisterEd25519Body,
  type RegisterPasskeyBody,
  type RevokeApproverKeyBody,
} from './schemas';

type Deps = Pick<DomainInfra, 'config' | 'repos'>;

/** How long a passkey registration ceremony may take. */
const REGISTRATION_TTL_MS = 5 * 60_000;

export const toApproverKeyView = (key: ApproverKey) => ({
  key_id: key._id,
  principal_id: key.principal_id,
  name: key.name,
  kind: key.kind,
  public_key: key.public_key,
  fingerprint: key.fingerprint,
  status: key.status,
  created_at: key.created_at,
  revoked_at: key.revoked_at,
  revoked_by: key.revoked_by,
  last_used_at: key.last_used_at ?? null,
});

/** `GET /v1/principals/me/keys`: the caller's keys, revoked ones included. */
export async function listMyApproverKeys(deps: Deps, auth: AuthContext) {
  const keys = await deps.repos.approverKeys.ofPrincipal(auth.principalId);
  return { items: keys.map(toApproverKeyView) };
}

/** `GET /v1/admin/approver-keys`: every principal's keys, newest first. */
export const listApproverKeys = (deps: Deps, query: ApproverKeyListQuery) =>
  pageById(
    query,
    'apk',
    (limit, before) =>
      deps.repos.approverKeys.list(
        { principal_id: query.principal_id, status: query.status, kind: query.kind },
        limit,
        before,
      ),
    toApproverKeyView,
  );

async function ensureRoomFor(
  deps: Deps,
  auth: AuthContext,
  duplicateOf?: (k: ApproverKey) => boolean,
) {
  const keys = await deps.repos.approverKeys.ofPrincipal(auth.principalId);
  const active = keys.filter((k) => k.status === 'active');
  const same = duplicateOf && active.find(duplicateOf);
  if (same) throw new Conflict(`this key is registered already as ${same._id}`);
  if (active.length >= MAX_ACTIVE_APPROVER_KEYS) {
    throw new InvalidState(
      `principal ${auth.principalId} has ${MAX_ACTIVE_APPROVER_KEYS} active approver keys; revoke one first`,
    );
  }
}

async function registered(deps: Deps, auth: AuthContext, requestId: string, key: ApproverKey) {
  await deps.repos.approverKeys.insert(key);
  const view = toApproverKeyView(key);
  await audit(deps, auth, requestId, {
    action: 'approver_key.register',
    target: { type: 'approver_key', id: key._id },
    before: null,
    after: view,
  });
  return view;
}

const newKey = (
  auth: AuthContext,
  fields: Pick<ApproverKey, 'name' | 'kind' | 'public_key' | 'fingerprint'> & Partial<ApproverKey>,
): ApproverKey => ({
  _id: newId('apk'),
  principal_id: auth.principalId,
  status: 'active',
  created_at: new Date().toISOString(),
  revoked_at: null,
  revoked_by: null,
  ...fields,
});

/** `POST /v1/principals/me/keys/register`: an Ed25519 key for the CLI or automation. */
export async function registerEd25519Key(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: RegisterEd25519Body,
) {
  const parsed = parseEd25519PublicKey(body.public_key);
  if (!parsed.ok) throw invalidAt(['body', 'public_key'], parsed.problem);
  await ensureRoomFor(deps, auth, (k) => k.kind === 'ed25519' && k.public_key === parsed.hex);
  const key = newKey(auth, {
    name: body.name,
    kind: 'ed25519',
    public_key: parsed.hex,
    fingerprint: ed25519Fingerprint(parsed.hex),
  });
  return registered(deps, auth, requestId, key);
}

/**
 * The COSE algorithms a passkey may use: EdDSA, ES256, RS256, named so the choice does not
 * follow the runtime. The WebAuthn library puts ML-DSA-44 first where the runtime supports
 * it (Node 24); its signatures (2,420 bytes) exceed what a decision body takes, so a
 * browser that picked it could register a passkey and never decide with it.
 */
const PASSKEY_ALGORITHMS = [-8, -7, -257];

/**
 * `POST /v1/principals/me/keys/passkey/options`: the options for `navigator.credentials.create`,
 * user verification required, with a single-use challenge kept for the registration.
 */
export async function passkeyRegistrationOptions(deps: Deps, auth: AuthContext) {
  await ensureRoomFor(deps, auth);
  const existing = await deps.repos.approverKeys.ofPrincipal(auth.principalId);
  const options = await generateRegistrationOptions({
    rpName: 'Governed Runtime',
    rpID: deps.config.webauthnRpId,
    userName: auth.principalName ?? auth.principalId,
    userID: new TextEncoder().encode(auth.principalId),
    attestationType: 'none',
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
    excludeCredentials: existing
      .filter((k) => k.kind === 'passkey' && k.status === 'active' && k.credential_id)
      .map((k) => ({ id: k.credential_id!, transports: k.transports as never })),
  });
  const issuedAt = new Date();
  const record = await deps.repos.approverKeys.issueChallenge({
    _id: newId('ach'),
    purpose: 'passkey_registration',
    principal_id: auth.principalId,
    issued_at: issuedAt.toISOString(),
    expires_at: new Date(issuedAt.getTime() + REGISTRATION_TTL_MS).toISOString(),
    webauthn_challenge: options.challenge,
  });
  return { nonce: record._id, expires_at: record.expires_at, options };
}

/** `POST /v1/principals/me/keys/passkey/register`: verifies the attestation, stores the key. */
export async function registerPasskey(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: RegisterPasskeyBody,
) {
  const challenge = await deps.repos.approverKeys.findChallenge(body.nonce);
  if (
    !challenge ||
    challenge.purpose !== 'passkey_registration' ||
    challenge.principal_id !== auth.principalId
  ) {
    throw invalidAt(
      ['body', 'nonce'],
      'not a passkey registration challenge issued to this principal',
    );
  }
  if (Date.now() > Date.parse(challenge.expires_at)) {
    throw new Forbidden(
      `the registration challenge expired at ${challenge.expires_at}; ask for new options`,
    );
  }
  const { credential } = body;
  let verification;
  try {
    verification = await verifyRegistrationResponse({
      response: {
        id: credential.id,
        rawId: credential.raw_id,
        type: 'public-key',
        clientExtensionResults: {},
        response: {
          clientDataJSON: credential.client_data_json,
          attestationObject: credential.attestation_object,
          ...(credential.transports ? { transports: credential.transports } : {}),
        },
      },
      expectedChallenge: challenge.webauthn_challenge ?? '',
      expectedOrigin: deps.config.webauthnOrigins,
      expectedRPID: deps.config.webauthnRpId,
      requireUserVerification: true,
    });
  } catch (error) {
    throw new Forbidden(
      `the passkey registration does not hold: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!verification.verified) throw new Forbidden('the passkey registration does not hold');
  if (!(await deps.repos.approverKeys.consumeChallenge(challenge._id, new Date().toISOString()))) {
    throw new Forbidden(`registration challenge ${challenge._id} was used already`);
  }
  const info = verification.registrationInfo.credential;
  await ensureRoomFor(deps, auth, (k) => k.credential_id === info.id);
  const key = newKey(auth, {
    name: body.name,
    kind: 'passkey',
    public_key: Buffer.from(info.publicKey).toString('base64url'),
    fingerprint: info.id,
    credential_id: info.id,
    counter: info.counter,
    transports: credential.transports ?? [],
  });
  return registered(deps, auth, requestId, key);
}

async function revoke(deps: Deps, auth: AuthContext, requestId: string, key: ApproverKey) {
  if (key.status === 'revoked')
    throw new InvalidState(`approver key ${key._id} is revoked already`);
  const at = new Date().toISOString();
  await deps.repos.approverKeys.revoke(key, auth.principalId, at);
  const after = {
    ...key,
    status: 'revoked' as const,
    revoked_at: at,
    revoked_by: auth.principalId,
  };
  await audit(deps, auth, requestId, {
    action: 'approver_key.revoke',
    target: { type: 'approver_key', id: key._id },
    before: toApproverKeyView(key),
    after: toApproverKeyView(after),
  });
  return toApproverKeyView(after);
}

/** `POST /v1/principals/me/keys/revoke`: only the caller's own keys (another's is 404). */
export async function revokeMyApproverKey(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: RevokeApproverKeyBody,
) {
  const key = await deps.repos.approverKeys.findById(body.key_id);
  if (!key || key.principal_id !== auth.principalId) {
    throw invalidAt(['body', 'key_id'], `approver key ${body.key_id} is not one of yours`);
  }
  return revoke(deps, auth, requestId, key);
}

/** `POST /v1/admin/approver-keys/revoke`: an operator revokes anyone's key. */
export async function revokeApproverKey(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: RevokeApproverKeyBody,
) {
  const key = await found(
    deps.repos.approverKeys.findById(body.key_id),
    `approver key ${body.key_id}`,
  );
  return revoke(deps, auth, requestId, key);
}
