import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A software authenticator: what a browser and a passkey return from
 * `navigator.credentials.create` / `.get`, built by hand (ES256, "none" attestation, user
 * present and verified), so the api's WebAuthn verification runs on real bytes in tests.
 */
export interface SoftwarePasskey {
  credentialId: Buffer;
  privateKey: KeyObject;
  x: Buffer;
  y: Buffer;
  counter: number;
}

const b64url = (bytes: Buffer): string => bytes.toString('base64url');
const sha256 = (bytes: Buffer | string): Buffer => createHash('sha256').update(bytes).digest();
/** Flags: user present (0x01) and verified (0x04); 0x40 when credential data follows. */
const PRESENT_AND_VERIFIED = 0x05;
const ATTESTED = 0x40;

export function newSoftwarePasskey(): SoftwarePasskey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  return {
    credentialId: randomBytes(16),
    privateKey,
    x: Buffer.from(jwk.x!, 'base64url'),
    y: Buffer.from(jwk.y!, 'base64url'),
    counter: 0,
  };
}

const clientData = (type: string, challenge: string, origin: string): Buffer =>
  Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));

function authenticatorData(rpId: string, flags: number, counter: number, attested?: Buffer) {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(counter);
  return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, attested ?? Buffer.alloc(0)]);
}

/** The `credential` of `POST /v1/principals/me/keys/passkey/register`. */
export function registrationCredential(
  passkey: SoftwarePasskey,
  options: { challenge: string; rpId: string; origin: string },
) {
  const coseKey = new Map<number, number | Uint8Array>([
    [1, 2], // kty: EC2
    [3, -7], // alg: ES256
    [-1, 1], // crv: P-256
    [-2, new Uint8Array(passkey.x)],
    [-3, new Uint8Array(passkey.y)],
  ]);
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(passkey.credentialId.length);
  const attested = Buffer.concat([
    Buffer.alloc(16), // AAGUID of a software authenticator
    idLength,
    passkey.credentialId,
    Buffer.from(isoCBOR.encode(coseKey)),
  ]);
  const authData = authenticatorData(
    options.rpId,
    PRESENT_AND_VERIFIED | ATTESTED,
    passkey.counter,
    attested,
  );
  const attestationObject = isoCBOR.encode(
    new Map<string, unknown>([
      ['fmt', 'none'],
      ['attStmt', new Map()],
      ['authData', new Uint8Array(authData)],
    ]) as never,
  );
  return {
    id: b64url(passkey.credentialId),
    raw_id: b64url(passkey.credentialId),
    client_data_json: b64url(clientData('webauthn.create', options.challenge, options.origin)),
    attestation_object: b64url(Buffer.from(attestationObject)),
  };
}

/** The `webauthn` of an approver assertion: the authenticator's signature over the challenge. */
export function passkeyAssertion(
  passkey: SoftwarePasskey,
  options: { challenge: string; rpId: string; origin: string },
) {
  passkey.counter += 1;
  const authData = authenticatorData(options.rpId, PRESENT_AND_VERIFIED, passkey.counter);
  const client = clientData('webauthn.get', options.challenge, options.origin);
  const signature = sign('sha256', Buffer.concat([authData, sha256(client)]), passkey.privateKey);
  return {
    credential_id: b64url(passkey.credentialId),
    authenticator_data: b64url(authData),
    client_data_json: b64url(client),
    signature: b64url(signature),
  };
}
